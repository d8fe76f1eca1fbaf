/* Check-in at the door: the list filters as you type, a tap checks a player in (or undoes
 * it) without reloading, and the desk phone's camera reads a slip's QR code (the player's
 * private link) and checks that player in. Every form also works without this script.
 *
 * The scanner uses the browser's BarcodeDetector where there is one, else the vendored
 * jsQR (web/static/web/vendor/jsqr/), loaded on first use. Whatever decodes a code hands it
 * to one handler, which a "scan:decoded" event on #scanner (detail: {code}) reaches too. */
import { LIVE, T, debounce } from "./common.js";

var JSQR = LIVE.jsqr;
var list = document.getElementById("check-in-list");
var result = document.getElementById("scan-result");
var scanForm = document.getElementById("scan-form");

function say(text, ok) {
  if (!result) return;
  result.textContent = text;
  result.className = "scan-result " + (ok ? "ok" : "error");
}

function post(form, extra) {
  var data = new FormData(form);
  Object.keys(extra || {}).forEach(function (k) { data.set(k, extra[k]); });
  return fetch(form.action, {
    method: "POST", body: data, credentials: "same-origin",
    headers: { Accept: "application/json" },
  }).then(function (response) {
    return response.json().catch(function () { throw new Error("HTTP " + response.status); });
  });
}

function showRow(answer) {
  if (!answer.html || !answer.entry) return;
  var row = document.getElementById("entry-" + answer.entry);
  if (row) {
    row.outerHTML = answer.html;
    row = document.getElementById("entry-" + answer.entry);
    if (row) row.classList.add("changed");
  }
}

/* the list: one tap per action, answered in place */
if (list) {
  list.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form")) return;
    event.preventDefault();
    var button = form.querySelector("button");
    if (button) button.disabled = true;
    post(form).then(function (answer) {
      say(answer.message, answer.ok);
      showRow(answer);
    }).catch(function () {
      say(T.failed, false);
      if (button) button.disabled = false;
    });
  });
}

/* the search: the list follows what is typed */
var search = document.getElementById("ci-q");
if (search && list && LIVE.list) {
  var refresh = debounce(function () {
    var params = new URLSearchParams(window.location.search);
    params.delete("page");
    if (search.value.trim()) params.set("q", search.value.trim()); else params.delete("q");
    var query = params.toString();
    params.set("partial", "1");
    fetch(LIVE.list + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        list.innerHTML = html;
        window.history.replaceState(null, "", LIVE.list + (query ? "?" + query : ""));
      });
  }, 250);
  search.addEventListener("input", refresh);
}

/* the scanner */
var lastCode = "", lastAt = 0;

export function handleCode(code) {
  code = (code || "").trim();
  var now = Date.now();
  if (!code || !scanForm || (code === lastCode && now - lastAt < 3000)) return null;
  lastCode = code;
  lastAt = now;
  return post(scanForm, { code: code }).then(function (answer) {
    say(answer.message, answer.ok);
    showRow(answer);
    return answer;
  }).catch(function () { say(T.failed, false); });
}

var scanner = document.getElementById("scanner");
if (scanner) {
  scanner.addEventListener("scan:decoded", function (event) {
    handleCode(event.detail && event.detail.code);
  });
}
if (scanForm) {
  scanForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var input = document.getElementById("scan-code");
    lastCode = "";  // typed again on purpose
    handleCode(input.value);
    input.value = "";
  });
}

var video = document.getElementById("scan-video");
var start = document.getElementById("scan-start");
var stop = document.getElementById("scan-stop");
var camera = document.getElementById("camera");
var stream = null;

function loadJsQR() {
  if (window.jsQR) return Promise.resolve(window.jsQR);
  return new Promise(function (resolve, reject) {
    var script = document.createElement("script");
    script.src = JSQR;
    script.onload = function () { resolve(window.jsQR); };
    script.onerror = reject;
    document.head.appendChild(script);
  });
}

function decoder() {
  if ("BarcodeDetector" in window) {
    var detector = new window.BarcodeDetector({ formats: ["qr_code"] });
    return Promise.resolve(function () {
      return detector.detect(video).then(function (codes) {
        return codes.length ? codes[0].rawValue : null;
      });
    });
  }
  return loadJsQR().then(function (jsQR) {
    var canvas = document.createElement("canvas");
    var context = canvas.getContext("2d", { willReadFrequently: true });
    return function () {
      var w = video.videoWidth, h = video.videoHeight;
      if (!w || !h) return Promise.resolve(null);
      canvas.width = w;
      canvas.height = h;
      context.drawImage(video, 0, 0, w, h);
      var found = jsQR(context.getImageData(0, 0, w, h).data, w, h,
                       { inversionAttempts: "dontInvert" });
      return Promise.resolve(found ? found.data : null);
    };
  });
}

function stopCamera() {
  if (stream) stream.getTracks().forEach(function (track) { track.stop(); });
  stream = null;
  if (camera) camera.hidden = true;
  if (start) start.hidden = false;
  if (stop) stop.hidden = true;
}

function startCamera() {
  navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false })
    .then(function (media) {
      stream = media;
      video.srcObject = media;
      camera.hidden = false;
      start.hidden = true;
      stop.hidden = false;
      say(T.scanning, true);
      return video.play().then(decoder);
    })
    .then(function (detect) {
      function frame() {
        if (!stream) return;
        detect().then(function (code) {
          if (code) handleCode(code);
        }).catch(function () {}).then(function () {
          if (stream) window.setTimeout(frame, 250);
        });
      }
      frame();
    })
    .catch(function () { stopCamera(); say(T.camera_off, false); });
}

if (start && video) {
  if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    start.hidden = false;
    start.addEventListener("click", startCamera);
    if (stop) stop.addEventListener("click", stopCamera);
  } else {
    say(window.isSecureContext ? T.no_camera : T.camera_off, false);
  }
}
