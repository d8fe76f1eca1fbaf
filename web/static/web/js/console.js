/* The organizer's console: follow the draw running on a worker and the results arriving.
 * Polls the console's status (JSON); the counts and the tables' states update in place, and
 * when the round changes step (drawn, published, a new round) the page reloads to show its
 * next action. */
import { LIVE } from "./common.js";
import { poll } from "./poll.js";

function setText(selector, value) {
  var node = document.querySelector(selector);
  if (node && value !== undefined && value !== null) node.textContent = value;
}

if (LIVE.api) {
  poll(function () { return LIVE.api; }, { seconds: LIVE.interval }, function (data) {
    if (data.round !== LIVE.round || data.status !== LIVE.status) {
      window.location.reload();
      return;
    }
    Object.keys(data.check_in).forEach(function (key) {
      setText('[data-count="' + key + '"]', data.check_in[key]);
    });
    Object.keys(data.progress.states).forEach(function (key) {
      setText('[data-state="' + key + '"]', data.progress.states[key]);
    });
    Object.keys(data.tables || {}).forEach(function (id) {
      var badge = document.querySelector('[data-table-state="' + id + '"]');
      var state = data.tables[id];
      if (badge && badge.dataset.state !== state) {
        badge.className = "badge state-" + state;
        badge.dataset.state = state;
        badge.textContent = (LIVE.state_labels || {})[state] || state;
      }
    });
  });
}
