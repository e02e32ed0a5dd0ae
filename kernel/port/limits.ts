/** The most characters a brief, a report body or a verdict file may hold (the CLI reads at most as many bytes). Kept
 * apart from the schemas so that the CLI reads it without building them. */
export const MAX_TEXT = 1_000_000
