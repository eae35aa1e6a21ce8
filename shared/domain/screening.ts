// Whether an address may be sent to: the one rule the intake applies to a new recipient and a requeue to a
// recipient sent again. A disposable domain never is (the intake's filter: the maintained list and config's
// additions), nor an address on its team's suppression list.

/** Which domains are disposable (intake/disposable.ts is the one the processes use). */
export interface DisposableDomains {
  isDisposable(domain: string): boolean;
}

export type Screening = 'sendable' | 'suppressed' | 'disposable';

/** `suppressed`: whether the address is on its team's suppression list. */
export function screenAddress(domain: string, suppressed: boolean, disposable: DisposableDomains): Screening {
  if (disposable.isDisposable(domain)) return 'disposable';
  return suppressed ? 'suppressed' : 'sendable';
}
