export { renderJson } from "./json.js";
export { MARKDOWN_LIMIT, renderMarkdown } from "./markdown.js";
export { renderText, type TextOptions } from "./text.js";
