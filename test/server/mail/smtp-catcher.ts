import net from 'node:net';

/** A minimal SMTP server on 127.0.0.1 that accepts every message and keeps it (no TLS, no AUTH). */
export interface Caught {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpCatcher {
  port: number;
  messages: Caught[];
  close: () => Promise<void>;
}

export function startSmtpCatcher(port = 0): Promise<SmtpCatcher> {
  const messages: Caught[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.setEncoding('utf8');
    let buf = '';
    let inData = false;
    let cur: Caught = { from: '', to: [], data: '' };
    const reply = (s: string) => sock.write(`${s}\r\n`);
    reply('220 catcher.test ESMTP ready');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          cur.data = buf.slice(0, end + 2).replace(/^\.\./gm, '.');
          buf = buf.slice(end + 5);
          inData = false;
          messages.push(cur);
          cur = { from: '', to: [], data: '' };
          reply('250 2.0.0 OK queued');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') reply('250-catcher.test\r\n250-8BITMIME\r\n250 SIZE 10485760');
        else if (verb === 'HELO') reply('250 catcher.test');
        else if (verb === 'MAIL') {
          cur.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          reply('250 2.1.0 OK');
        } else if (verb === 'RCPT') {
          cur.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          reply('250 2.1.5 OK');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 End data with <CR><LF>.<CR><LF>');
        } else if (verb === 'RSET') {
          cur = { from: '', to: [], data: '' };
          reply('250 OK');
        } else if (verb === 'QUIT') {
          reply('221 Bye');
          sock.end();
        } else reply('250 OK');
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const p = (server.address() as net.AddressInfo).port;
      resolve({
        port: p,
        messages,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}
