// A name is one line of text: no control character (CR, LF, NUL, TAB, ...), which would split a mail header, a
// log line or a CSV row it is written into. One rule for every name people give (a user's, an account's, a team's).
export const isOneLine = (text: string): boolean => !/\p{Cc}/u.test(text);

/** The refusal's words for a field that is not one line. */
export const notOneLine = (field: string): string => `${field} must be one line of text, without control characters`;
