(function () {
  "use strict";
  var root = document.documentElement;
  function fail(message) {
    var before = root.getAttribute("data-errors");
    root.setAttribute("data-errors", (before ? before + " | " : "") + message);
  }
  window.addEventListener("error", function (e) { fail(String(e.message || e)); });

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function init() {
    var D = JSON.parse(document.getElementById("replay-data").textContent);
    var slider = document.getElementById("round-slider");
    var label = document.getElementById("round-label");
    var title = document.getElementById("round-title");
    var orderLine = document.getElementById("round-order");
    var tbody = document.querySelector("#car-table tbody");
    var narration = document.getElementById("narration");
    var svgRound = document.getElementById("circuit-round");
    var podiumLabel = document.getElementById("podium-label");
    var buttons = {
      first: document.getElementById("first"), prev: document.getElementById("prev"),
      next: document.getElementById("next"), last: document.getElementById("last")
    };
    var carsByName = {}, markers = {}, ghosts = {}, dots = {}, trails = {}, bodies = {};
    D.cars.forEach(function (c) {
      carsByName[c.name] = c;
      markers[c.name] = document.querySelector('#circuit .car[data-car="' + CSS.escape(c.name) + '"]');
      bodies[c.name] = markers[c.name].querySelector(".body");
      ghosts[c.name] = document.querySelector('#circuit .ghost[data-car="' + CSS.escape(c.name) + '"]');
      trails[c.name] = document.querySelector('#circuit .trail[data-car="' + CSS.escape(c.name) + '"]');
      dots[c.name] = Array.prototype.slice.call(document.querySelectorAll('.chart .dot[data-car="' + CSS.escape(c.name) + '"]'));
    });
    var cursors = Array.prototype.slice.call(document.querySelectorAll(".chart .cursor"));
    var last = D.rounds.length - 1;
    var current = -1;

    function chip(name) {
      var c = carsByName[name];
      return '<span class="chip" style="background:' + c.fill + ";color:" + c.ink + '">' + esc(c.label) + "</span>";
    }

    function place(el, xy, animate) {
      if (!el) { return; }
      el.classList.toggle("still", !animate);
      el.setAttribute("transform", "translate(" + xy[0].toFixed(1) + " " + xy[1].toFixed(1) + ")");
    }

    function spotOf(car) {
      if (car.finished) { return D.podium[car.place - 1]; }
      return D.spots[car.space + ":" + car.lane];
    }

    function angleOf(car) {
      if (car.finished) { return 0; }
      return D.angles[car.space + ":" + car.lane] || 0;
    }

    function trailPath(pts) {
      return pts.map(function (p, k) { return (k ? "L" : "M") + p[0] + "," + p[1]; }).join("");
    }

    function show(i, animate) {
      i = Math.max(0, Math.min(last, i));
      var r = D.rounds[i];
      slider.value = String(i);
      label.textContent = r.label;
      title.textContent = r.title;
      svgRound.textContent = r.label;
      orderLine.textContent = r.order.length ? "Turn order: " + r.order.join(" › ") +
        (r.adrenaline.length ? " · adrenaline: " + r.adrenaline.join(", ") : "") : "";
      podiumLabel.setAttribute("data-hidden", r.standings.some(function (n) { return r.cars[n].finished; }) ? "false" : "true");
      buttons.first.disabled = buttons.prev.disabled = i === 0;
      buttons.next.disabled = buttons.last.disabled = i === last;
      D.cars.forEach(function (c) {
        var car = r.cars[c.name];
        var m = markers[c.name];
        m.setAttribute("data-space", car.finished ? "" : String(car.space));
        m.setAttribute("data-lane", car.finished ? "" : String(car.lane));
        m.setAttribute("data-progress", String(car.progress));
        m.setAttribute("data-finished", car.finished ? "true" : "false");
        m.setAttribute("data-rank", String(car.rank));
        place(m, spotOf(car), animate);
        bodies[c.name].setAttribute("transform", "rotate(" + angleOf(car).toFixed(1) + ")");
        var trail = r.trails && r.trails[c.name];
        trails[c.name].setAttribute("data-hidden", trail ? "false" : "true");
        trails[c.name].setAttribute("d", trail ? trailPath(trail) : "");
        var from = r.from && r.from[c.name];
        var g = ghosts[c.name];
        if (from && !car.finished && (from.space !== car.space || from.lane !== car.lane || from.progress !== car.progress)) {
          g.setAttribute("data-hidden", "false");
          place(g, D.spots[from.space + ":" + from.lane], false);
        } else {
          g.setAttribute("data-hidden", "true");
        }
        dots[c.name].forEach(function (dot) {
          var pts = D.charts[dot.getAttribute("data-chart")][c.name];
          dot.setAttribute("cx", pts[i][0]);
          dot.setAttribute("cy", pts[i][1]);
        });
      });
      cursors.forEach(function (line) {
        var x = D.charts.x[i];
        line.setAttribute("x1", x);
        line.setAttribute("x2", x);
      });
      var byCar = {};
      r.turns.forEach(function (t) { byCar[t.car] = t; });
      var names = r.order.concat(r.standings.filter(function (n) { return r.order.indexOf(n) < 0; }));
      tbody.innerHTML = names.map(function (name) {
        var car = r.cars[name], t = byCar[name] || {};
        var hand = car.legend ? "Legend: no cards" : car.cards ? esc(car.cards.join(" ")) : "hidden";
        if (car.upgrades) hand += " · upgrades: " + esc(car.upgrades);
        return '<tr data-car="' + esc(name) + '"' + (car.finished ? ' class="finished"' : "") + ">" +
          '<td class="name">' + chip(name) + esc(name) + "</td>" +
          "<td>" + esc(t.gear || car.gear) + '</td><td class="cards">' + esc(t.played || "") +
          '</td><td class="cards">' + esc(t.flips || "") + "</td><td>" + esc(t.speed === undefined ? "" : t.speed) +
          "</td><td>" + esc(t.move === undefined ? "" : t.move) + "</td><td>" + esc(t.slip || "") +
          '</td><td class="cards">' + esc(t.corners || "") + '</td><td class="spin">' + esc(t.spin || "") +
          "</td><td>" + esc(car.lap) + "</td><td>" + esc(car.spot) + "</td><td>" + esc(car.engine) +
          "</td><td>" + esc(car.hand) + "</td><td>" + esc(car.deck_text || car.deck) + "</td><td>" + esc(car.discard) +
          '</td><td class="in-hand">' + hand + "</td></tr>";
      }).join("");
      var items = r.turns.map(function (t) {
        return '<li class="turn' + (t.spin ? " spinout" : "") + '" data-car="' + esc(t.car) + '">' + chip(t.car) +
          '<span class="text">' + esc(t.text) + "</span></li>";
      });
      r.notes.forEach(function (n) {
        items.push('<li class="note"><span class="text">' + (n[0] ? esc(n[0]) + ": " : "") + esc(n[1]) + "</span></li>");
      });
      if (!items.length) {
        items.push('<li class="empty">' + (i === 0 ? "The cars on the grid, before round " + D.rounds[Math.min(1, last)].n + "." : "No turns yet.") + "</li>");
      }
      narration.innerHTML = items.join("");
      document.body.setAttribute("data-round", String(r.n));
      if (current !== -1 || location.hash) {
        try { history.replaceState(null, "", "#round=" + r.n); } catch (e) { /* file: URLs in some browsers */ }
      }
      current = i;
    }

    // #measure (for tests): is the spot drawn at each of the data's spot centres the one the data names there?
    function measure() {
      var svg = document.getElementById("circuit");
      svg.classList.add("measuring");
      var ctm = svg.getScreenCTM(), misses = [], checked = 0;
      Object.keys(D.spots).forEach(function (key) {
        var pt = svg.createSVGPoint();
        pt.x = D.spots[key][0];
        pt.y = D.spots[key][1];
        var at = pt.matrixTransform(ctm);
        var hit = document.elementFromPoint(at.x, at.y);
        var got = hit && hit.classList && hit.classList.contains("spot") ?
          hit.getAttribute("data-space") + ":" + hit.getAttribute("data-lane") : "none";
        checked += 1;
        if (got !== key) { misses.push(key + "->" + got); }
      });
      root.setAttribute("data-spots-checked", String(checked));
      root.setAttribute("data-spot-misses", misses.join(" "));
    }

    function indexOfRound(n) {
      for (var k = 0; k < D.rounds.length; k++) { if (D.rounds[k].n === n) { return k; } }
      return -1;
    }

    var instant = true;  // no animation while the page opens on the round its address names
    slider.addEventListener("input", function () { show(+slider.value, !instant); });
    buttons.first.addEventListener("click", function () { show(0, true); });
    buttons.prev.addEventListener("click", function () { show(current - 1, true); });
    buttons.next.addEventListener("click", function () { show(current + 1, true); });
    buttons.last.addEventListener("click", function () { show(last, true); });
    document.addEventListener("keydown", function (e) {
      if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) { return; }
      var to = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last }[e.key];
      if (to !== undefined) { e.preventDefault(); show(to, true); }
    });

    // #round=N picks a round (through the slider, as a person would); press=Key,Key sends keys (for tests).
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var p = kv.split("=");
      if (p[0]) { params[p[0]] = decodeURIComponent(p[1] || ""); }
    });
    show(D.start, false);
    if (params.round !== undefined) {
      var k = indexOfRound(parseInt(params.round, 10));
      if (k < 0) { fail("no round " + params.round); } else {
        slider.value = String(k);
        slider.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
    instant = false;
    if (params.view === "circuit") { document.body.setAttribute("data-view", "circuit"); }
    if (params.measure !== undefined) { measure(); }
    if (params.press) {
      params.press.split(",").forEach(function (key) {
        document.dispatchEvent(new KeyboardEvent("keydown", { key: key, bubbles: true }));
      });
    }
  }

  try {
    init();
    root.setAttribute("data-ready", "true");
  } catch (e) {
    fail(String((e && e.stack) || e));
  }
})();
