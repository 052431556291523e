// getEvents paging with the JS SDK, shared by the event tests.
import assert from 'node:assert/strict';
import type { rpc } from '@stellar/stellar-sdk';

/** Pages through getEvents with cursors until a page comes back short; returns every event. */
export async function pageToEnd(s: rpc.Server, first: rpc.Api.GetEventsRequest, limit: number): Promise<{ events: rpc.Api.EventResponse[]; pages: number; cursor: string }> {
  const events: rpc.Api.EventResponse[] = [];
  let res = await s.getEvents({ ...first, limit } as rpc.Api.GetEventsRequest);
  let pages = 1;
  for (;;) {
    events.push(...res.events);
    if (res.events.length < limit) return { events, pages, cursor: res.cursor };
    assert.equal(res.cursor, res.events[res.events.length - 1].id, 'a full page ends at its last event');
    res = await s.getEvents({ filters: first.filters, cursor: res.cursor, limit });
    pages++;
  }
}
