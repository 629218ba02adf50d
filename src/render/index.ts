export { stripControls } from "../core/controls.js";
export { renderJson } from "./json.js";
export { MARKDOWN_LIMIT, renderMarkdown } from "./markdown.js";
export { sanitizePlan } from "./sanitize.js";
export { renderText, renderTextLines, type TextOptions } from "./text.js";
