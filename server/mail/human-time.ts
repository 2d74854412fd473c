/** WordPress `human_time_diff`: "45 secs", "1 min", "3 hours", "2 days", "1 week", "5 months", "2 years". */
export function humanTimeDiff(fromSeconds: number, toSeconds: number): string {
  const MIN = 60;
  const HOUR = 3600;
  const DAY = 86_400;
  const WEEK = 7 * DAY;
  const MONTH = 30 * DAY;
  const YEAR = 365 * DAY;
  const diff = Math.abs(toSeconds - fromSeconds);
  const unit = (n: number, one: string, many: string) => {
    const v = Math.max(1, n);
    return `${v} ${v === 1 ? one : many}`;
  };
  if (diff < MIN) return unit(diff, 'sec', 'secs');
  if (diff < HOUR) return unit(Math.round(diff / MIN), 'min', 'mins');
  if (diff < DAY) return unit(Math.round(diff / HOUR), 'hour', 'hours');
  if (diff < WEEK) return unit(Math.round(diff / DAY), 'day', 'days');
  if (diff < MONTH) return unit(Math.round(diff / WEEK), 'week', 'weeks');
  if (diff < YEAR) return unit(Math.round(diff / MONTH), 'month', 'months');
  return unit(Math.round(diff / YEAR), 'year', 'years');
}
