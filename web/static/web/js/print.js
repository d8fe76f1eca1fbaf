/* The printable QR codes: the Print button (the browser's own print command works without it). */
document.querySelectorAll("[data-print]").forEach(function (button) {
  button.addEventListener("click", function () { window.print(); });
});
