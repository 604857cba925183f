export interface FaultRow {
  fault: string;
  attempted: number;
  delivered: number;
  charged: number;
  refused: number;
  worstLatencyMs: number;
  recoveryMs: number | null;
  notes?: string;
}
export interface FaultScenario {
  name: string;
  run(): Promise<FaultRow>;
}
