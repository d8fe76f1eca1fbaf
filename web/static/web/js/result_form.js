/* The result forms of a seated player's table (web/views/table.py): the next game's sheet and
 * a correction's. Tap the seats in finishing order instead of choosing from six lists; the
 * 开点 the rules decide (a seat that revolted, and with revolution_kaidian "auto" its 对头) is
 * filled in; the form is not sent while a place, a seat's 开点 or a correction's reason is
 * missing; and the engine's team points — or its refusal, next to the field it is about —
 * show as the form is filled in.
 * Without this script the lists, the radio buttons and the "Score it" button do the same on
 * the server. */
import { T, fmt, el, debounce } from "./common.js";

function enhance(form) {
  var prefix = form.dataset.prefix ? form.dataset.prefix + "-" : "";
  var selects = Array.prototype.slice.call(form.querySelectorAll(".places select"));
  var groups = Array.prototype.slice.call(form.querySelectorAll(".yes-no"));  // 开点, by seat
  var tap = form.querySelector(".tap");
  var hint = form.querySelector(".tap-hint");
  var score = form.querySelector(".score");
  var auto = form.dataset.revolutionKaidian === "auto";
  var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  var seats = Array.prototype.slice.call(selects[0].options)
    .filter(function (o) { return o.value !== ""; })
    .map(function (o) { return { seat: o.value, label: o.textContent }; });

  function named(name) {
    return form.querySelector('[name="' + prefix + name + '"]');
  }

  form.classList.add("js");
  tap.hidden = false;
  hint.hidden = false;

  function order() {
    return selects.map(function (s) { return s.value; });
  }

  function ticked(name) {
    var box = named(name);
    return Boolean(box && box.checked);
  }

  /** The 开点 the rules decide, by seat: "no" for a seat that revolted, "yes" for its 对头
   * under revolution_kaidian "auto" (web.forms.sheet.SheetForm.kaidian_by_rule). */
  function byRule() {
    var forced = {};
    var s;
    for (s = 0; s < 6; s++) if (auto && ticked("revolution_" + s)) forced[(s + 3) % 6] = "yes";
    for (s = 0; s < 6; s++) if (ticked("revolution_" + s)) forced[s] = "no";
    return forced;
  }

  function applyRules() {
    var forced = byRule();
    groups.forEach(function (g) {
      var answer = forced[g.dataset.seat];
      g.classList.toggle("by-rule", Boolean(answer));
      g.querySelectorAll("input").forEach(function (r) {
        if (answer) {
          r.checked = r.value === answer;
          r.disabled = true;  // (not sent: the server fills it in by the same rule)
        } else if (r.disabled) {
          r.disabled = false;
          r.checked = false;
        }
      });
    });
  }

  /** What is still missing before the form can be scored (none for a void game, 流局), and
   * when `sending`, sent (a correction's reason too). */
  function missing(sending) {
    var out = [];
    if (!ticked("void")) {
      var next = order().indexOf("");
      if (next >= 0) out.push(fmt("order_missing", { place: T.places[next] }));
      var forced = byRule();
      var open = groups.filter(function (g) {
        return !forced[g.dataset.seat] && !g.querySelector("input:checked");
      }).map(function (g) { return g.dataset.label; });
      if (open.length) out.push(fmt("kaidian_missing", { seats: open.join(T.separator) }));
    }
    var reason = form.querySelector("textarea[name=reason]");
    if (sending && reason && !reason.value.trim()) out.push(T.reason_missing);
    return out;
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

  function clearErrors() {  // (the engine's, by their fields: not the list of what is missing)
    form.querySelectorAll(".js-error:not(.summary)").forEach(function (n) { n.remove(); });
  }

  function showError(field, messages) {
    var box = el("div", "errors js-error");
    box.setAttribute("role", "alert");
    messages.forEach(function (m) { box.appendChild(el("p", null, m)); });
    var input = field === "__all__" ? null : named(field);
    if (field.indexOf("place_") === 0) input = tap;
    var anchor = input ? (input.closest(".seat-row, .order-input, label") || input) : null;
    if (anchor) anchor.appendChild(box); else form.insertBefore(box, form.querySelector("fieldset"));
  }

  /** The list of what is missing, at the top of the form, scrolled into view. */
  function showMissing(list) {
    form.querySelectorAll(".summary").forEach(function (n) { n.remove(); });
    var box = el("div", "errors summary js-error");
    box.setAttribute("role", "alert");
    box.tabIndex = -1;
    var head = el("p");
    head.appendChild(el("strong", null, T.not_sent));
    box.appendChild(head);
    var ul = el("ul");
    list.forEach(function (m) { ul.appendChild(el("li", null, m)); });
    box.appendChild(ul);
    form.insertBefore(box, form.querySelector("fieldset"));
    box.scrollIntoView({ block: "start" });
    box.focus({ preventScroll: true });
  }

  var check = debounce(function () {
    clearErrors();
    if (missing(false).length) { score.textContent = ""; return; }
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

  form.addEventListener("change", function () {
    applyRules();
    check();
  });
  form.addEventListener("input", function () {  // (what was missing may be there now)
    form.querySelectorAll(".summary.js-error").forEach(function (n) { n.remove(); });
  });
  form.addEventListener("submit", function (e) {
    var list = missing(!(e.submitter && e.submitter.name === "preview"));
    if (!list.length) return;
    e.preventDefault();
    showMissing(list);
  });
  applyRules();
  draw();
  check();
}

document.querySelectorAll("form.sheet").forEach(enhance);
