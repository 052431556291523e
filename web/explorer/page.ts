// What a page gets: the element it fills, and a way to know it is still the one shown (a page
// whose data arrives after the user moved on must not draw over the next one), and to clean up.

export interface Page {
  readonly el: HTMLElement;
  /** False once the user left this page. */
  alive(): boolean;
  /** Runs when the user leaves this page. */
  onLeave(cleanup: () => void): void;
}

export type PageRender = (page: Page, arg: string) => void | Promise<void>;
