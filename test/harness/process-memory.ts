// A process's memory as Linux reports it (/proc/<pid>/status): resident now and at its peak, in MB. Used by the
// memory benchmarks and by the tests that bound what a running `ternmail` process grows by.
import { readFileSync } from 'node:fs';

export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
