/**
 * Code blocks of the project's Markdown that tests run or compile, so documentation cannot drift
 * from the code: a fenced block counts when the line right above its opening fence is an HTML
 * comment starting with `<!-- <marker>` (invisible when rendered).
 */

/** The bodies of the ```<lang> blocks right under a `<!-- <marker> ... -->` line, in order, with the rest of that comment. */
export function markedBlocks(markdown: string, marker: string, langs: readonly string[]): Array<{ note: string; code: string }> {
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^<!-- ${escaped}([^\\n]*?)-->\\n\`\`\`(?:${langs.join('|')})\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  return [...markdown.matchAll(pattern)].map((m) => ({ note: m[1].trim(), code: m[2] }));
}
