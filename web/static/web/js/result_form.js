/* The result form of a seated player's table (web/views/table.py): tap the seats in finishing
 * order instead of choosing from six lists, and see the engine's team points — or its refusal,
 * next to the field it is about — as the form is filled in. Without this script the lists and
 * the "Score it" button do the same on the server. */
import { T, fmt, el, debounce } from "./common.js";

var form = document.getElementById("sheet");
if (form) {
  var selects = Array.prototype.slice.call(form.querySelectorAll(".places select"));
  var tap = form.querySelector(".tap");
  var hint = form.querySelector(".tap-hint");
  var score = document.getElementById("score");
  var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  var seats = Array.prototype.slice.call(selects[0].options)
    .filter(function (o) { return o.value !== ""; })
    .map(function (o) { return { seat: o.value, label: o.textContent }; });

  form.classList.add("js");
  tap.hidden = false;
  hint.hidden = false;

  function order() {
    return selects.map(function (s) { return s.value; });
  }

  function draw() {
    var placed = order();
    tap.textContent = "";
    seats.forEach(function (s) {
      var place = placed.indexOf(s.seat);
      var b = el("button", "side-" + (Number(s.seat) % 2));
      b.type = "button";
      b.dataset.seat = s.seat;
      b.setAttribute("aria-pressed", place >= 0 ? "true" : "false");
      b.appendChild(el("span", "got", place >= 0 ? T.places[place] : "\u00a0"));
      b.appendChild(document.createTextNode(s.label));
      tap.appendChild(b);
    });
    var next = placed.indexOf("");
    hint.textContent = next >= 0 ? fmt("tap_next", { place: T.places[next] }) : T.all_placed;
  }

  tap.addEventListener("click", function (e) {
    var b = e.target.closest("button[data-seat]");
    if (!b) return;
    var placed = order().filter(function (v) { return v !== ""; });
    var at = placed.indexOf(b.dataset.seat);
    if (at >= 0) placed.splice(at, 1); else placed.push(b.dataset.seat);
    selects.forEach(function (s, i) { s.value = placed[i] || ""; });
    draw();
    check();
  });

  function clearErrors() {
    form.querySelectorAll(".js-error").forEach(function (n) { n.remove(); });
  }

  function showError(field, messages) {
    var box = el("div", "errors js-error");
    box.setAttribute("role", "alert");
    messages.forEach(function (m) { box.appendChild(el("p", null, m)); });
    var input = field === "__all__" ? null : form.querySelector("[name=" + field + "]");
    if (field.indexOf("place_") === 0) input = tap;
    var anchor = input ? (input.closest(".seat-row, .order-input, label") || input) : null;
    if (anchor) anchor.appendChild(box); else form.insertBefore(box, form.firstChild.nextSibling);
  }

  var check = debounce(function () {
    clearErrors();
    if (order().indexOf("") >= 0) { score.textContent = ""; return; }
    fetch(form.dataset.score, {
      method: "POST", body: new FormData(form), credentials: "same-origin",
      headers: { "X-CSRFToken": csrf, "Accept": "application/json" },
    }).then(function (r) { return r.json(); }).then(function (body) {
      clearErrors();
      if (body.ok) {
        score.textContent = fmt("points", { a: T.sides[0], pa: body.points[0],
                                            b: T.sides[1], pb: body.points[1] });
      } else {
        score.textContent = "";
        Object.keys(body.errors).forEach(function (k) { showError(k, body.errors[k]); });
      }
    }).catch(function () { score.textContent = ""; });
  }, 250);

  form.addEventListener("change", check);
  draw();
  check();
}
