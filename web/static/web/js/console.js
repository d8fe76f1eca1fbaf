/* The organizer's dashboard: follow the draw running on a worker and the results arriving.
 * Polls the dashboard's status (JSON); the counts update in place, and when the round changes
 * step (drawn, published, a new round) the page reloads to show its next action. */
import { LIVE } from "./common.js";
import { poll } from "./poll.js";

function setCount(selector, value) {
  var node = document.querySelector(selector);
  if (node && value !== undefined) node.textContent = value;
}

if (LIVE.api) {
  poll(function () { return LIVE.api; }, { seconds: LIVE.interval }, function (data) {
    if (data.round !== LIVE.round || data.status !== LIVE.status) {
      window.location.reload();
      return;
    }
    Object.keys(data.check_in).forEach(function (key) {
      setCount('[data-count="' + key + '"]', data.check_in[key]);
    });
    Object.keys(data.progress.states).forEach(function (key) {
      setCount('[data-state="' + key + '"]', data.progress.states[key]);
    });
  });
}
