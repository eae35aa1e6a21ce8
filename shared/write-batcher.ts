// Write batching: items submitted while the writer is busy are applied together, as one batch inside one
// transaction, so a burst of submissions costs the writer a few multi-row statements instead of several round
// trips each (each round trip waits for the event loop, which under load is what limits). Engine-neutral:
// `transaction` is whatever runs work in one transaction (on SQLite a grouped one, sharing its commit).
interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** Runs `work` in one transaction on `Q` (a connection, a unit of work). */
export type InTransaction<Q> = <T>(work: (q: Q) => Promise<T>) => Promise<T>;

export class Batcher<Q, I, O> {
  private readonly pending: Array<Pending<I, O>> = [];

  /** `apply` answers one output per item, in order; it runs within the transaction. */
  constructor(
    private readonly transaction: InTransaction<Q>,
    private readonly apply: (q: Q, items: readonly I[]) => Promise<O[]>,
    private readonly maxItems = 200,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length === 1) this.flush();
    });
  }

  /** The batch is taken when the writer gets to it, not when it was asked for: whatever came meanwhile joins. */
  private flush(): void {
    let batch: Array<Pending<I, O>> = [];
    this.transaction((q) => {
      batch = this.pending.splice(0, this.maxItems);
      if (this.pending.length) this.flush();
      return this.apply(
        q,
        batch.map((p) => p.item),
      );
    }).then(
      (outputs) => batch.forEach((p, i) => p.resolve(outputs[i]!)),
      (error: unknown) => {
        // The transaction failed before this batch was taken (BEGIN found the database locked for too
        // long): the items waiting for it fail with it, and any beyond a batch get their own attempt.
        if (!batch.length) return this.failWaiting(error);
        // One bad item must not fail the others: a failed batch is tried again one item at a time.
        if (batch.length === 1) batch[0]!.reject(error);
        else for (const p of batch) this.applyAlone(p);
      },
    );
  }

  private failWaiting(error: unknown): void {
    for (const p of this.pending.splice(0, this.maxItems)) p.reject(error);
    if (this.pending.length) this.flush();
  }

  private applyAlone(p: Pending<I, O>): void {
    this.transaction((q) => this.apply(q, [p.item])).then((outputs) => p.resolve(outputs[0]!), p.reject);
  }
}
