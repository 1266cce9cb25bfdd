/**
 * export_audit's CSV: RFC 4180 (papaparse), a header row, CRLF line ends,
 * quoting where a value needs it, formulae escaped, a null latency as an
 * empty cell; every record ends with a line break.
 *
 * The export streams: the month is read in keyset pages
 * (activity_month_page), each page written as CSV through a ReadableStream
 * as the client reads, so the process never holds the month at once (its
 * memory stays in proportion to a page, not to the month).
 */
import Papa from "papaparse";
import { type Activity, ACTIVITY_CSV_COLUMNS } from "../contract/account.ts";
import { activityMonthPage, type MonthPage } from "../db/activity.ts";
import type { Db } from "../db/db.ts";
import { describeCause } from "../http/endpoint.ts";
import type { Logger } from "../log/logger.ts";

/** CSV lines of `rows`, each ending with CRLF; with the header row first when `header`. */
function csvLines(rows: readonly Activity[], header: boolean): string {
  if (!header && rows.length === 0) return "";
  const csv = Papa.unparse({
    fields: [...ACTIVITY_CSV_COLUMNS],
    data: rows.map((row) => ACTIVITY_CSV_COLUMNS.map((column) => row[column])),
  }, { newline: "\r\n", escapeFormulae: true, header });
  // papaparse ends a header-only file with a line break and a longer one
  // without; every record here ends with one.
  return csv.endsWith("\r\n") ? csv : `${csv}\r\n`;
}

/** The month's activity as one CSV string: the export's format, for rows already in memory. */
export function activityCsv(rows: readonly Activity[]): string {
  return csvLines(rows, true);
}

/** What an export reads: whose month, how many records a page, and where to log a failure. */
export interface ActivityExport {
  db: Db;
  logger: Logger;
  requestId: string;
  accountId: string;
  month: string;
  pageRows: number;
}

/**
 * Reads the month's first page (so that a database failure before any byte
 * is sent is still the endpoint's error status) and returns the CSV as a
 * stream that reads each next page when the client is ready for it. A
 * failure after the first page ends the stream with an error (the client
 * sees a truncated body, never a partial file presented as complete) and is
 * logged with its kind only.
 */
export async function activityCsvStream(
  options: ActivityExport,
): Promise<ReadableStream<Uint8Array>> {
  const { db, accountId, month, pageRows } = options;
  const encoder = new TextEncoder();
  let page: MonthPage | null = await activityMonthPage(db, { accountId, month, pageRows });
  const throughId = page.through_id;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Pages that hold no record (a month that ends on a page boundary)
        // write nothing; keep reading until a chunk or the end.
        while (page !== null) {
          const current: MonthPage = page;
          const text = csvLines(current.rows, first);
          first = false;
          page = current.next === null ? null : await activityMonthPage(db, {
            accountId,
            month,
            pageRows,
            after: current.next,
            throughId,
          });
          if (text !== "") {
            controller.enqueue(encoder.encode(text));
            return;
          }
        }
        controller.close();
      } catch (error) {
        options.logger.log("error", "export stream failed", {
          request_id: options.requestId,
          error: describeCause(error),
        });
        controller.error(new Error("The export could not be completed"));
      }
    },
  }, { highWaterMark: 0 });
}
