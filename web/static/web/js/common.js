/* What every page script of a 够级 event shares: its settings, its texts, building elements.
 * Each page hands its settings over in #live-data and its translated texts in #js-text (JSON
 * scripts the server renders); the markup the scripts build mirrors the server-rendered
 * templates. Plain ES modules: no build step, no library. */

function readJSON(id) {
  var node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

/** The page's translated texts, by key. */
export var T = readJSON("js-text") || {};
/** The page's settings: API addresses, poll interval, columns… */
export var LIVE = readJSON("live-data") || {};

/** A translated text with its %(name)s placeholders filled in from `values`. */
export function fmt(key, values) {
  var text = T[key] || key;
  return text.replace(/%\((\w+)\)s/g, function (_, name) {
    return values && values[name] !== undefined ? values[name] : "";
  });
}

export function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

export function debounce(fn, ms) {
  var timer = null;
  return function () {
    var args = arguments;
    clearTimeout(timer);
    timer = setTimeout(function () { fn.apply(null, args); }, ms);
  };
}
