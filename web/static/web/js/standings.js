/* A standings row as the leaderboard and the projector show it. */
import { LIVE, T, el, fmt } from "./common.js";

function movementCell(movement) {
  if (movement === null || movement === undefined) return el("span", "move none");
  if (movement > 0) {
    var up = el("span", "move up", "▲" + movement);
    up.title = fmt("up", { n: movement });
    return up;
  }
  if (movement < 0) {
    var down = el("span", "move down", "▼" + (-movement));
    down.title = fmt("down", { n: -movement });
    return down;
  }
  var same = el("span", "move same", "–");
  same.title = T.same || "";
  return same;
}

function entryName(entry) {
  // the API names a numbered player "name (#number)"; the number is shown apart
  var suffix = " (#" + entry.number + ")";
  var name = entry.name;
  if (entry.number && name.slice(-suffix.length) === suffix) name = name.slice(0, -suffix.length);
  return name;
}

/* `entryUrl`: the address of an entry's history with 0 for its id (the leaderboard links each
 * name to it; the projector shows plain names). */
export function standingRow(s, columns, entryUrl) {
  var tr = el("tr");
  tr.dataset.entry = s.entry.id;
  tr.appendChild(el("td", "rank", s.rank));
  var move = el("td", "move");
  move.appendChild(movementCell(s.movement));
  tr.appendChild(move);
  var name = el("td", "name");
  if (entryUrl) {
    var link = el("a", "", entryName(s.entry));
    link.href = entryUrl.replace("/0/", "/" + s.entry.id + "/");
    name.appendChild(link);
  } else {
    name.textContent = entryName(s.entry);
  }
  if (s.entry.number) {
    name.appendChild(document.createTextNode(" "));
    name.appendChild(el("small", "pno", "#" + s.entry.number));
  }
  appendRating(name, s.entry.id);
  tr.appendChild(name);
  columns.forEach(function (key) { tr.appendChild(el("td", "num", s[key])); });
  return tr;
}

/* The player's rating beside the name, when the organizer shows ratings (LIVE.ratings: entry id
 * -> rating, rendered by the page). */
export function appendRating(parent, entryId) {
  var ratings = LIVE.ratings || {};
  if (ratings[entryId] === undefined) return;
  parent.appendChild(document.createTextNode(" "));
  var small = el("small", "prating", ratings[entryId]);
  small.title = T.rating || "";
  parent.appendChild(small);
}
