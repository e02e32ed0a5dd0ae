import * as v from 'valibot'

/** One line of a conversation's transcript.jsonl, as every reader checks it. */
export const TranscriptEntrySchema = v.object({ n: v.number(), at: v.number(), kind: v.string(), text: v.string() })
export type TranscriptEntry = v.InferOutput<typeof TranscriptEntrySchema>

/** A page of a transcript holds at most this many bytes of it: a reader never loads a whole transcript. */
export const TRANSCRIPT_PAGE_BYTES = 256 * 1024

/** Entries of one page, and the cursor (a byte offset at a line's start) to ask for what follows. `more` says the
 * page was full: what follows may already be there. */
export interface TranscriptPage {
  entries: TranscriptEntry[]
  cursor: number
  more: boolean
}
