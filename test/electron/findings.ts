/** Severity levels of the shell security review, worst first. Any HIGH fails `npm run audit:electron`. */
export const SEVERITIES = ['HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Finding {
  /** Stable check id, e.g. NODE_INTEGRATION, in the spirit of electronegativity's check names. */
  id: string;
  severity: Severity;
  message: string;
  /** file:line for source findings, or what was probed for runtime findings. */
  where?: string;
}

export function hasHigh(findings: readonly Finding[]): boolean {
  return findings.some((finding) => finding.severity === 'HIGH');
}

export function formatFindings(findings: readonly Finding[]): string {
  const lines: string[] = [];
  for (const severity of SEVERITIES) {
    const group = findings.filter((finding) => finding.severity === severity);
    lines.push(`${severity} (${group.length})`);
    for (const finding of group) lines.push(`  [${finding.id}] ${finding.message}${finding.where ? `  (${finding.where})` : ''}`);
  }
  return lines.join('\n');
}

/** CSP text -> directive name -> source list (lower-cased names, as the CSP spec compares them). */
export function parseCsp(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), values);
  }
  return directives;
}

/** Sources that let a page run script it did not ship: inline, eval, or code from anywhere. */
const UNSAFE_SCRIPT_SOURCES = ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", '*', 'data:', 'blob:', 'http:', 'https:', 'filesystem:'];

/** Findings for one CSP: script sources (with default-src fallback), object-src, base-uri. */
export function reviewCsp(policy: string | undefined, where: string): Finding[] {
  if (!policy) return [{ id: 'CSP_MISSING', severity: 'HIGH', message: 'No Content-Security-Policy on the app pages', where }];
  const csp = parseCsp(policy);
  const findings: Finding[] = [];
  const script = csp.get('script-src') ?? csp.get('default-src');
  if (!script) findings.push({ id: 'CSP_NO_SCRIPT_SRC', severity: 'HIGH', message: 'CSP restricts neither script-src nor default-src', where });
  for (const source of script ?? []) {
    if (UNSAFE_SCRIPT_SOURCES.includes(source.toLowerCase())) {
      findings.push({ id: 'CSP_UNSAFE_SCRIPT', severity: 'HIGH', message: `CSP allows scripts from ${source}`, where });
    }
  }
  const object = csp.get('object-src') ?? csp.get('default-src');
  if (object?.join(' ') !== "'none'") {
    findings.push({ id: 'CSP_OBJECT_SRC', severity: 'MEDIUM', message: "CSP object-src is not 'none'", where });
  }
  if (!csp.has('base-uri')) findings.push({ id: 'CSP_BASE_URI', severity: 'LOW', message: 'CSP sets no base-uri', where });
  return findings;
}
