/* heatlog serve: the live page (host screen, a phone's seat, a spectator's board).
   The server sends each panel as escaped HTML; this script only puts panels in place, moves the cars on the
   circuit, and sends what a button or a form says (with the CSRF token and an idempotency key per submission). */
(function () {
  "use strict";
  var root = document.documentElement;
  var role = root.getAttribute("data-role");
  var meta = document.querySelector('meta[name="csrf"]');
  var csrf = meta ? meta.getAttribute("content") : "";
  var geoEl = document.getElementById("geometry");
  var geo = geoEl ? JSON.parse(geoEl.textContent) : null;
  var message = document.getElementById("message");
  var shown = {};
  var picks = {};

  var sayTimer = null;
  function say(text, kind) {
    if (!message) { return; }
    message.textContent = text || "";
    message.className = kind || "";
    clearTimeout(sayTimer);
    if (kind === "ok") { sayTimer = setTimeout(function () { say(""); }, 4000); }
  }

  function newKey() {
    if (window.crypto && window.crypto.getRandomValues) {
      var a = new Uint32Array(4);
      window.crypto.getRandomValues(a);
      return Array.prototype.map.call(a, function (n) { return n.toString(16); }).join("-");
    }
    return String(Date.now()) + "-" + String(Math.random()).slice(2);
  }

  /* One submission; retried with the same key after a network failure, so it is recorded once. */
  /* The question (the log's head, its kind and car) of the screen a button or form is on: an answer from a
     screen the race has moved past is refused by the server, never taken as the next one's (a double tap). */
  function moment(el) {
    var sec = el && el.closest ? el.closest(".ctl.question") : null;
    var at = sec ? sec.getAttribute("data-at") : null;
    return at === null ? undefined : at;
  }

  function send(body, done) {
    body.key = body.key || newKey();
    var tries = 0;
    root.setAttribute("data-busy", "true");
    function attempt() {
      tries += 1;
      fetch("/api/act", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body)
      }).then(function (r) { return r.json(); }).then(function (res) {
        root.setAttribute("data-busy", "false");
        if (res.ok) {
          var lines = (res.lines || []).filter(function (l) { return l[0] !== "dim"; }).map(function (l) { return l[1]; });
          say(lines.join(" · ") || "recorded", "ok");
        } else {
          say(res.error || "refused", "error");
        }
        if (done) { done(res); }
        refresh();
      }).catch(function () {
        if (tries < 4) {
          say("no answer from the table yet: trying again…", "error");
          setTimeout(attempt, 400 * tries);
        } else {
          root.setAttribute("data-busy", "false");
          say("no connection to the table: tap again when the Wi-Fi is back (it will not be recorded twice)", "error");
        }
      });
    }
    attempt();
  }

  function place(name, car) {
    if (!geo) { return; }
    var el = document.querySelector('#circuit .car[data-car="' + CSS.escape(name) + '"]');
    if (!el) { return; }
    var xy = car.finished && car.place ? geo.podium[car.place - 1] : geo.spots[car.space + ":" + car.lane];
    if (!xy) { return; }
    el.setAttribute("transform", "translate(" + xy[0] + " " + xy[1] + ")");
    el.setAttribute("data-space", car.finished ? "" : String(car.space));
    var body = el.querySelector(".body");
    var angle = car.finished ? 0 : (geo.angles[car.space + ":" + car.lane] || 0);
    if (body) { body.setAttribute("transform", "rotate(" + angle + ")"); }
  }

  function pickerKey(p) {
    var sec = p.closest(".ctl");
    return [p.getAttribute("data-action"), p.getAttribute("data-car"), sec ? sec.getAttribute("data-question") : "",
      p.getAttribute("data-prefix") || "", identity(p)].join("|");  /* taps belong to the question they were made on */
  }

  /* The taps of the questions on screen are kept in the tab's sessionStorage too, so a reload (or a phone that
     dropped the page) finds them tapped: one item per race and page (a seat's picker names its car), each
     picker's taps with the question they were made on (its data-at, a plan's round). Taps of another question
     are never put back: they are dropped when the page shows a question they were not made on. */
  var stored = null;
  var storedRace = null;
  function tapsItem(race) { return "heatlog-taps|" + role + "|" + race; }
  function identity(p) {
    var sec = p.closest(".ctl");
    if (!sec) { return ""; }
    return sec.getAttribute("data-at") || ("round " + (sec.getAttribute("data-round") || ""));
  }
  function readTaps(race) {
    try {
      var got = JSON.parse(window.sessionStorage.getItem(tapsItem(race)) || "{}");
      return got && typeof got === "object" ? got : {};
    } catch (err) { return {}; }
  }
  function restore(p) {
    var k = pickerKey(p);
    var s = stored && stored[k];
    if (picks[k] !== undefined || !s || s.at !== identity(p) || !Array.isArray(s.taps)) { return; }
    picks[k] = s.taps.filter(function (c) {
      return c && typeof c.token === "string" && typeof c.label === "string";
    }).map(function (c) { return { token: c.token, label: c.label }; });
  }
  function saveTaps() {
    if (storedRace === null) { return; }
    var out = {};
    Array.prototype.forEach.call(document.querySelectorAll(".picker"), function (p) {
      var k = pickerKey(p);
      if (picks[k] && picks[k].length) { out[k] = { at: identity(p), taps: picks[k] }; }
    });
    stored = out;
    try {
      if (Object.keys(out).length) { window.sessionStorage.setItem(tapsItem(storedRace), JSON.stringify(out)); }
      else { window.sessionStorage.removeItem(tapsItem(storedRace)); }
    } catch (err) { /* no storage (a private window): the taps live as long as the page */ }
  }

  function showPicks(p) {
    var chosen = picks[pickerKey(p)] || [];
    var out = p.querySelector(".chosen");
    var need = p.getAttribute("data-count");
    var labels = chosen.map(function (c) { return c.label; });
    var plan = p.getAttribute("data-action") === "plan";  /* the number of cards is the gear (# 4.1) */
    if (out) {
      out.textContent = chosen.length ? labels.join(" ") + (need ? "  (" + chosen.length + " of " + need + ")" : "")
        + (plan ? "  → gear " + chosen.length : "")
        : (need ? "choose " + need : (plan ? "tap the cards you play" : (p.getAttribute("data-empty") || "choose the cards")));
    }
    p.setAttribute("data-chosen", chosen.map(function (c) { return c.token; }).join(" "));
  }

  function apply(data) {
    var controls = (data.panels || {}).controls;
    if (message && message.className === "error" && controls !== undefined && shown.controls !== undefined &&
        controls !== shown.controls) {
      say("");  /* a refusal is about the screen it was made on: the race has moved on since */
    }
    if (data.taken) { say("another phone took this seat over: open the join link again to take it back", "error"); }
    if (storedRace !== String(data.race)) { storedRace = String(data.race); stored = readTaps(storedRace); }
    var panels = data.panels || {};
    Object.keys(panels).forEach(function (id) {
      var el = document.getElementById(id);
      if (el && shown[id] !== panels[id]) {
        el.innerHTML = panels[id];
        shown[id] = panels[id];
        Array.prototype.forEach.call(el.querySelectorAll(".picker"), function (p) { restore(p); showPicks(p); });
      }
    });
    var present = {};  /* the taps of a picker gone from the page (entered, or the host acted) are gone with it */
    Array.prototype.forEach.call(document.querySelectorAll(".picker"), function (p) { present[pickerKey(p)] = true; });
    Object.keys(picks).forEach(function (k) { if (!present[k]) { delete picks[k]; } });
    saveTaps();
    (data.cars || []).forEach(function (c) { place(c.name, c); });
    root.setAttribute("data-version", String(data.version));
    root.setAttribute("data-race", String(data.race));
  }

  /* A refresh's answer is dropped when the page already shows a later state of the same race: rendered before a
     change the stream has brought since, it would put back a screen already answered (on a slow phone, the old
     question again under the player's finger, until the next change). The stream's own messages come in order
     and are always put in place (a restarted server counts its versions from 0 again). */
  function refresh() {
    fetch("/api/view", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (data) {
      var race = root.getAttribute("data-race");
      var at = Number(root.getAttribute("data-version"));
      if (race !== null && race === String(data.race) && data.version < at) { return; }
      apply(data);
    }).catch(function () { /* the stream brings the next one */ });
  }

  function listen() {
    if (!window.EventSource) { setInterval(refresh, 2000); return; }
    var es = new EventSource("/stream");
    es.onmessage = function (ev) { apply(JSON.parse(ev.data)); root.setAttribute("data-live", "true"); };
    es.addEventListener("taken", function (ev) {
      say(JSON.parse(ev.data).error, "error");
      root.setAttribute("data-taken", "true");
      es.close();
    });
    es.onerror = function () { root.setAttribute("data-live", "false"); };
  }

  if (message) {  /* a tap on a message puts it away (it may cover the buttons at the bottom of a phone) */
    message.addEventListener("click", function () { say(""); });
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target.closest("button");
    if (!t) { return; }
    var p = t.closest(".picker");
    if (p && t.classList.contains("cardbtn")) {
      var k = pickerKey(p);
      picks[k] = picks[k] || [];
      var most = Number(p.getAttribute("data-count") || 0);
      if (most > 1 && picks[k].length >= most) {  /* a tap too many: the choice stays as it is */
        say(most + " cards chosen already: ⌫ takes back the last one", "error");
        return;
      }
      picks[k].push({ token: t.getAttribute("data-token"), label: t.textContent });
      showPicks(p);
      saveTaps();
      if (p.getAttribute("data-count") === "1") { t = p.querySelector(".send"); } else { return; }
    }
    if (p && t.classList.contains("clear")) { picks[pickerKey(p)] = []; showPicks(p); saveTaps(); return; }
    if (p && t.classList.contains("unpick")) { (picks[pickerKey(p)] || []).pop(); showPicks(p); saveTaps(); return; }
    if (p && t.classList.contains("send")) {
      var key = pickerKey(p);
      var prefix = p.getAttribute("data-prefix") || "";
      var chosen = (picks[key] || []).map(function (c) { return c.token; }).join(prefix && prefix.slice(-1) !== " " ? "" : " ");
      var need = p.getAttribute("data-count");
      if (need && (picks[key] || []).length !== Number(need)) { say("choose " + need + " card" + (need === "1" ? "" : "s"), "error"); return; }
      if (!chosen) { say("choose the cards first", "error"); return; }
      send({ action: p.getAttribute("data-action"), car: p.getAttribute("data-car") || null, text: prefix + chosen,
        at: moment(p) }, function (res) { if (res.ok) { picks[key] = []; saveTaps(); } });
      return;
    }
    if (t.classList.contains("answer")) {
      send({ action: "answer", car: t.getAttribute("data-car") || null, text: t.getAttribute("data-text"),
        at: moment(t) });
      return;
    }
    if (t.classList.contains("ask-takeback") || t.classList.contains("keep")) {  /* a phone asks before it undoes */
      var box = t.closest(".undo-mine");
      var ask = t.classList.contains("ask-takeback");
      box.querySelector(".confirm").hidden = !ask;
      box.querySelector(".ask-takeback").hidden = ask;
      return;
    }
    if (t.classList.contains("takeback")) {
      send({ action: "takeback", car: t.getAttribute("data-car") || null });
      return;
    }
    if (t.classList.contains("resume")) {
      send({ action: "resume", race: Number(t.getAttribute("data-race")) }, function (res) {
        if (res.ok) { location.href = "/host"; }
      });
    }
  });

  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    ev.preventDefault();
    if (f.id === "setup") {
      var fields = {};
      Array.prototype.forEach.call(f.elements, function (el) {
        if (!el.name) { return; }
        fields[el.name] = el.type === "checkbox" ? el.checked : el.value;
      });
      send({ action: "setup", fields: fields }, function (res) { if (res.ok) { location.href = "/host"; } });
    } else if (f.id === "undo") {
      send({ action: "undo", reason: f.elements.reason.value, reopen: f.elements.reopen.checked },
        function (res) { if (res.ok) { f.reset(); } });
    } else if (f.id === "note") {
      send({ action: "note", text: f.elements.text.value }, function (res) { if (res.ok) { f.reset(); } });
    } else if (f.classList.contains("typed")) {
      send({ action: "answer", car: f.getAttribute("data-car") || null, text: f.elements.text.value, at: moment(f) },
        function (res) { if (res.ok) { f.reset(); } });
    }
  });

  if (role === "host" || role === "seat" || role === "watch") {
    refresh();
    listen();
  }
})();
