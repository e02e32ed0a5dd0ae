/** Work handed off without waiting: items are delivered one at a time, in order, by `deliver`. Past `bound`
 * items waiting, the oldest is dropped (and counted), so a receiver that hangs can hold up neither the caller nor
 * memory. `deliver` must not throw; if it does, the error goes to `onError` and the next item is delivered. */
export class DeliveryQueue<T> {
  private items: T[] = []
  private busy = false
  dropped = 0

  constructor(
    private readonly bound: number,
    private readonly deliver: (item: T) => Promise<void>,
    private readonly onDrop: (dropped: number) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  push(item: T): void {
    if (this.items.length >= this.bound) {
      this.items.shift()
      this.dropped++
      this.onDrop(this.dropped)
    }
    this.items.push(item)
    void this.drain()
  }

  private async drain(): Promise<void> {
    if (this.busy) return
    this.busy = true
    try {
      for (let item = this.items.shift(); item !== undefined; item = this.items.shift()) {
        try {
          await this.deliver(item)
        } catch (e) {
          this.onError(e)
        }
      }
    } finally {
      this.busy = false
    }
  }
}
