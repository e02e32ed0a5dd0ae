/** The kernel's refusals are the CLI's, word for word, so they name the CLI's flags. On the page the same refusal
 * names the control that does the same thing: the rule and the reason stay the kernel's, only the way out is the
 * page's. */
const PAGE_WORDS: [RegExp, string][] = [
  [/pass --park to save them to a patch/, 'tick “park uncommitted work” to save them to a patch'],
  [/pass --replace to stop it and (launch|run) anew/, 'tick “replace the live one” to stop it and $1 anew'],
  [/pass --at <sha>/, 'give a commit in “at”'],
  [/pass --force to send it anyway/, 'it takes no further message'],
  [/answer it with allow --message <answer>/, 'answer it by choosing an option'],
  [/--message goes with deny \(the reason\) or answers a question/, 'a message goes with Deny (the reason)'],
  [/--(from|at|branch|reuse|replace|key|for|run|model|harness|effort|brief|prompt|title)\b/g, '“$1”'],
]

export function refusalInPageWords(message: string): string {
  return PAGE_WORDS.reduce((m, [re, to]) => m.replace(re, to), message)
}
