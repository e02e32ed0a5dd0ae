/** What a worker needs of the tracker its issue lives in: the issue as it reads now, and its comments (to find the
 * marker of a report already posted, and to post one). One interface, one adapter per tracker. */

export type IssueState = 'open' | 'closed'

export interface IssueFacts {
  title: string
  body: string
  url: string
  state: IssueState
}

export interface IssueComment {
  id: string
  body: string
}

/** `R` is the parsed reference the tracker serves (its own kind of issue). */
export interface Tracker<R> {
  resolve(ref: R): Promise<IssueFacts>
  comments(ref: R): Promise<IssueComment[]>
  /** Post one comment; returns where it is. */
  comment(ref: R, body: string): Promise<{ posted: true; url: string }>
}
