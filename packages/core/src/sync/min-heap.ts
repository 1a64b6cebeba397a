/**
 * A binary min-heap ordered by `less`. Small and generic: the delaying queue keeps its waiting items
 * in one so that the next ready item is found in O(log n), whatever the number of waiting items.
 */
export class MinHeap<E> {
  private readonly items: E[] = [];

  constructor(private readonly less: (a: E, b: E) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): E | undefined {
    return this.items[0];
  }

  push(item: E): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): E | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && this.less(items[left]!, items[smallest]!)) smallest = left;
      if (right < items.length && this.less(items[right]!, items[smallest]!)) smallest = right;
      if (smallest === i) return top;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  clear(): void {
    this.items.length = 0;
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    [items[a], items[b]] = [items[b]!, items[a]!];
  }
}
