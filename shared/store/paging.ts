// Paging of repository lists: which page, how many per page, and a page with its total.
export interface PageRequest {
  page: number;
  perPage: number;
}

export interface PageOf<T> {
  rows: T[];
  total: number;
}

export const limitOffset = (p: PageRequest): [number, number] => [p.perPage, (p.page - 1) * p.perPage];
