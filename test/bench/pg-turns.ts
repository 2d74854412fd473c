/**
 * Names what each round trip of a PostgreSQL connection carried, from the bytes its client sends (the frontend
 * messages of protocol 3.0): the text of each simple query, and of each prepared statement executed (its Parse is
 * remembered by name, so a Bind of a statement prepared long before still shows its text). For the delay proxy's
 * trace (BENCH_PG_TRACE): which statements make a request's round trips.
 */
export function pgTurns(): { feed(chunk: Buffer, turn: boolean): string | null; end(): string | null } {
  let buf: Buffer = Buffer.alloc(0);
  let started = false;
  const statements = new Map<string, string>();
  let executed: string[] = [];
  let prepared: string[] = [];
  const cstring = (b: Buffer, at: number) => {
    const end = b.indexOf(0, at);
    return { text: b.toString('utf8', at, end < 0 ? b.length : end), next: end + 1 };
  };
  const short = (sql: string) => {
    const one = sql.replace(/\s+/g, ' ').trim();
    return one.length > 160 ? `${one.slice(0, 157)}...` : one;
  };
  const flush = () => {
    const line = executed.length ? executed.join(' | ') : prepared.length ? `prepare ${prepared.join(' | ')}` : null;
    executed = [];
    prepared = [];
    return line;
  };
  return {
    feed(chunk, turn) {
      const done = turn ? flush() : null;
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (!started) {
          // Startup, SSL and GSS requests: a length and a code, no type byte.
          if (buf.length < 8 || buf.length < buf.readInt32BE(0)) break;
          if (buf.readInt32BE(4) === 196608) started = true;
          buf = buf.subarray(buf.readInt32BE(0));
          continue;
        }
        if (buf.length < 5 || buf.length < 1 + buf.readInt32BE(1)) break;
        const type = String.fromCharCode(buf[0]!);
        const body = buf.subarray(5, 1 + buf.readInt32BE(1));
        buf = buf.subarray(1 + buf.readInt32BE(1));
        if (type === 'Q') executed.push(short(cstring(body, 0).text));
        else if (type === 'P') {
          const name = cstring(body, 0);
          const sql = short(cstring(body, name.next).text);
          statements.set(name.text, sql);
          prepared.push(sql);
        } else if (type === 'B') {
          const portal = cstring(body, 0);
          const name = cstring(body, portal.next).text;
          executed.push(statements.get(name) ?? `(statement ${name})`);
        }
      }
      return done;
    },
    end: flush,
  };
}
