// The state documents the CVE sync and the KEV refresh keep in nvd_state.

export const CVE_SYNC_STATE = "cves";
export const KEV_STATE = "kev";

interface PendingWindow {
  /** ISO 8601 bounds of the last-modified window being paged through. */
  start: string;
  end: string;
  /** The next startIndex to ask for. */
  nextIndex: number;
  /** NVD's totalResults for the window, once a page said it. */
  totalResults: number | null;
}

export interface CveSyncState {
  /** Continuous coverage began here: every modification since is stored. */
  coveredSince: string | null;
  /** Every modification up to here is stored. */
  syncedThrough: string | null;
  /** When a window was last completed. */
  syncedAt: string | null;
  /** A window whose pages are not all stored yet; a run resumes it first. */
  pending: PendingWindow | null;
  lastPageAt: string | null;
  /** Bumped whenever a run stored or pruned records: nodes rebuild their search index when it changes. */
  generation: number;
  rateLimited: { total: number; lastAt: string | null };
}

export const INITIAL_SYNC_STATE: CveSyncState = {
  coveredSince: null,
  syncedThrough: null,
  syncedAt: null,
  pending: null,
  lastPageAt: null,
  generation: 0,
  rateLimited: { total: 0, lastAt: null },
};

export interface KevState {
  catalogVersion: string | null;
  dateReleased: string | null;
  entries: number;
  etag: string | null;
  lastModified: string | null;
  source: string;
  /** When the catalogue was last downloaded, and last checked (a 304 checks without downloading). */
  fetchedAt: string;
  checkedAt: string;
  recordedSample: boolean;
}
