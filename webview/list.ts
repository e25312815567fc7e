// A virtualised listbox: fixed-height rows, only the visible ones (plus a margin) exist in the DOM and are reused
// while scrolling, so 10,000 Services scroll as smoothly as 10. Keyboard: ↑/↓, PageUp/PageDown, Home/End move the
// active row (aria-activedescendant), Enter selects it alone, Space toggles it. Rows are filled with textContent.

export const ROW_HEIGHT = 58;
const OVERSCAN = 6;

export interface VirtualListOptions<T> {
  container: HTMLElement;
  label: string;
  /** Fills a (reused) row element for an item. */
  render(row: HTMLElement, item: T, index: number): void;
  key(item: T): string;
  isSelected(item: T): boolean;
  /** Click / Enter (exclusive) or Ctrl/Cmd-click / Space (toggle). */
  onChoose(item: T, exclusive: boolean): void;
}

export class VirtualList<T> {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private items: T[] = [];
  private readonly rows: HTMLElement[] = [];
  private active = -1;
  private frame = 0;

  constructor(private readonly o: VirtualListOptions<T>) {
    this.element = document.createElement('div');
    this.element.className = 'services';
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-multiselectable', 'true');
    this.element.setAttribute('aria-label', o.label);
    this.element.tabIndex = 0;
    this.spacer = document.createElement('div');
    this.spacer.className = 'spacer';
    this.element.append(this.spacer);
    o.container.append(this.element);
    this.element.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.element);
    this.element.addEventListener('click', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('.service');
      const index = row ? Number(row.dataset.index) : -1;
      if (index >= 0 && index < this.items.length) {
        this.setActive(index, false);
        this.o.onChoose(this.items[index], !(e.ctrlKey || e.metaKey || e.shiftKey));
      }
    });
    this.element.addEventListener('keydown', (e) => this.keydown(e));
  }

  setLabel(label: string): void {
    this.element.setAttribute('aria-label', label);
  }

  setItems(items: T[]): void {
    const activeKey = this.active >= 0 && this.active < this.items.length ? this.o.key(this.items[this.active]) : undefined;
    this.items = items;
    this.active = activeKey === undefined ? -1 : items.findIndex((i) => this.o.key(i) === activeKey);
    this.spacer.style.height = `${items.length * ROW_HEIGHT}px`;
    this.draw();
  }

  /** Re-renders the visible rows (after a selection change). */
  refresh(): void {
    this.draw();
  }

  get length(): number {
    return this.items.length;
  }

  /** Scrolls so that the item with this key is visible and makes it the active row. */
  reveal(key: string): void {
    const index = this.items.findIndex((i) => this.o.key(i) === key);
    if (index >= 0) this.setActive(index, true);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    const height = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.items.length, Math.ceil((this.element.scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    const needed = Math.max(0, last - first);
    while (this.rows.length < needed) {
      const row = document.createElement('div');
      row.className = 'service';
      row.setAttribute('role', 'option');
      this.element.append(row);
      this.rows.push(row);
    }
    this.rows.forEach((row, i) => {
      const index = first + i;
      if (i >= needed) {
        row.hidden = true;
        row.removeAttribute('id');
        return;
      }
      row.hidden = false;
      const item = this.items[index];
      if (row.dataset.index !== String(index) || row.dataset.key !== this.o.key(item) || row.dataset.dirty !== '0') {
        row.dataset.index = String(index);
        row.dataset.key = this.o.key(item);
        row.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
        this.o.render(row, item, index);
      }
      row.dataset.dirty = '0';
      row.id = `service-row-${index}`;
      row.setAttribute('aria-selected', String(this.o.isSelected(item)));
      row.setAttribute('aria-posinset', String(index + 1));
      row.setAttribute('aria-setsize', String(this.items.length));
      row.classList.toggle('active', index === this.active);
    });
    if (this.active >= first && this.active < last) this.element.setAttribute('aria-activedescendant', `service-row-${this.active}`);
    else this.element.removeAttribute('aria-activedescendant');
  }

  /** Forces the next draw to re-render every row (new strings, new files). */
  invalidate(): void {
    for (const row of this.rows) row.dataset.dirty = '1';
    this.draw();
  }

  private setActive(index: number, scroll: boolean): void {
    this.active = Math.max(0, Math.min(this.items.length - 1, index));
    if (scroll) {
      const top = this.active * ROW_HEIGHT;
      const view = this.element.clientHeight;
      if (top < this.element.scrollTop) this.element.scrollTop = top;
      else if (top + ROW_HEIGHT > this.element.scrollTop + view) this.element.scrollTop = top + ROW_HEIGHT - view;
    }
    this.draw();
  }

  private keydown(e: KeyboardEvent): void {
    if (this.items.length === 0) return;
    const page = Math.max(1, Math.floor(this.element.clientHeight / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) this.setActive((this.active < 0 ? -1 : this.active) + moves[e.key], true);
    else if (e.key === 'Home') this.setActive(0, true);
    else if (e.key === 'End') this.setActive(this.items.length - 1, true);
    else if ((e.key === 'Enter' || e.key === ' ') && this.active >= 0) this.o.onChoose(this.items[this.active], e.key === 'Enter');
    else return;
    e.preventDefault();
  }
}
