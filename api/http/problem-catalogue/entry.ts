/** One problem type as the catalogue explains it (GET /problems/{type}, and the reference page). */
export interface ProblemEntry {
  /** The `title` the service answers with it. */
  title: string;
  /** The HTTP status (or statuses) it comes with. */
  status: number | number[];
  /** What it means, in a sentence. */
  meaning: string;
  /** When the service answers it: which operations, and what leads to it. */
  when: string;
  /** What the client should do about it. */
  action: string;
  /** A `detail` as the service writes it. */
  example: string;
}
