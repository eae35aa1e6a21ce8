// A user's search text as a LIKE pattern for "contains": its own `%`, `_` and `\` match themselves (each query
// says ESCAPE '\'). Both engines' repositories use it, so a search means the same on either.
export const likeContains = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
