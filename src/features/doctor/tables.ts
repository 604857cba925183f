// The doctor's own tables (portable types: text, integer; ISO-8601 text timestamps).

export interface DoctorReportTable {
  /** dr_ + 32 hex characters. */
  id: string;
  sku: string;
  /** The wallet that paid for the call that produced the report, lower-case. */
  payer: string;
  /** The answer's body, exactly the text that was delivered. */
  body: string;
  body_sha256: string;
  network: string;
  transaction: string | null;
  amount: string;
  /** The signed receipt (compact JWS) of the call that produced the report; null before receipts existed. */
  receipt: string | null;
  created_at: string;
}

export interface DoctorVerifyTokenTable {
  token: string;
  /** host[:port] as in the URL, lower-case. */
  host: string;
  wallet: string;
  created_at: string;
  expires_at: string;
}

export interface DoctorUnknownReasonTable {
  reason: string;
  first_seen_at: string;
  last_seen_at: string;
  seen_count: number;
  /** The start of one response that carried it, for the reviewer. */
  sample_response: string;
  reviewed_at: string | null;
  /** The catalogue cause a later review mapped it to. */
  resolved_code: string | null;
}

export interface DoctorTables {
  doctor_reports: DoctorReportTable;
  doctor_verify_tokens: DoctorVerifyTokenTable;
  doctor_unknown_reasons: DoctorUnknownReasonTable;
}
