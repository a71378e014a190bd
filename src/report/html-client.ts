/**
 * The scripts the HTML report runs in the browser: a small one before uPlot that gives it a language
 * tag Intl accepts, and, after uPlot, the page's own. Per agent: a chart of calls
 * over time where each period a version ran is a labelled band, from its deploy (or its return) to
 * the next period's, and its calls are bars inside it; a marker at each deploy whose popup names the commit, who deployed and links to
 * the diff; a tooltip for the bin under the cursor; and the rates of each version drawn as intervals.
 * Every text goes in with `textContent` and every link is checked to be http(s): the data came from
 * the service and the repository. Popups and tooltips are placed inside their chart, whatever its width.
 * A chart that cannot be drawn says so in its place; the legend, the rate plots and the table remain.
 */

/**
 * Runs before uPlot, which calls `new Intl.NumberFormat(navigator.language)` as it loads and so
 * throws, drawing nothing, when Intl refuses the tag: Chromium in a C/POSIX locale (a container's
 * or a server's usual default) reports `en-US@posix`. uPlot then sees the tag without its `@`
 * suffix, or `en-US`.
 */
export const INTL_LANGUAGE_SCRIPT = `(function () {
  function accepted(tag) { try { new Intl.NumberFormat(tag); return true; } catch (e) { return false; } }
  var tag = navigator.language;
  if (accepted(tag)) return;
  var base = String(tag).split('@')[0];
  Object.defineProperty(navigator, 'language', { value: accepted(base) ? base : 'en-US', configurable: true });
})();
`;

/** The page's helpers: colours, element building, URL checks, time formatting, placement inside a box. */
const PAGE_HELPERS = String.raw`  var PALETTE = ['#1f4e8c', '#d35400', '#2e8540', '#8e44ad', '#9a7d0a', '#16a085', '#c0392b', '#34495e'];
  var ERROR_COLOR = '#b03a2e';
  var SVG = 'http://www.w3.org/2000/svg';
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function safeUrl(url) {
    return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
  }
  function seconds(iso) { return Date.parse(iso) / 1000; }
  /** A time in UTC at the resolution the bins need: milliseconds for sub-second bins. */
  function timeText(t, binSeconds) {
    var iso = new Date(t * 1000).toISOString();
    return (binSeconds < 1 ? iso.slice(11, 23) : binSeconds < 60 ? iso.slice(11, 19) : iso.slice(0, 16).replace('T', ' ')) + ' UTC';
  }
  function widthText(binSeconds) {
    if (binSeconds < 1) return Math.round(binSeconds * 1000) + ' ms';
    if (binSeconds < 60) return binSeconds + ' s';
    if (binSeconds < 3600) return binSeconds / 60 + ' min';
    if (binSeconds < 86400) return binSeconds / 3600 + ' h';
    return binSeconds / 86400 + ' days';
  }
  function percent(v) { return v === null ? '–' : (v * 100).toFixed(1) + '%'; }
  /** Where a box of width w goes next to x inside 0..limit: right of x, else left of it, else pinned to an edge. */
  function placeBeside(x, w, limit) {
    if (x + 8 + w <= limit) return x + 8;
    if (x - 8 - w >= 0) return x - 8 - w;
    return Math.max(0, limit - w);
  }
  function deployPopup(deploy, version) {
    var box = el('div', 'deploy-popup');
    box.appendChild(el('strong', '', (version ? version.label + ' · ' : '') + 'Deploy ' + deploy.at.replace('T', ' ').slice(0, 23) + ' UTC'));
    if (version && version.liveBeforeRecord) box.appendChild(el('div', 'note', 'Live from ' + version.firstCall.slice(11, 23) + ' — its first call, made while the apply was finishing'));
    if (deploy.rollback_of) box.appendChild(el('div', '', 'Rollback to record ' + deploy.rollback_of.record + (deploy.rollback_of.commit ? ' (commit ' + deploy.rollback_of.commit + (deploy.rollback_of.uncommitted ? ' with uncommitted changes' : '') + ')' : '')));
    if (deploy.pull_request !== null) box.appendChild(el('div', '', 'Pull request #' + deploy.pull_request));
    box.appendChild(el('div', '', (deploy.rollback_of ? 'Run with commit ' : 'Commit ') + (deploy.commit || 'unknown') + (deploy.uncommitted ? ' with uncommitted changes' : '') + (deploy.branch ? ' on ' + deploy.branch : '')));
    box.appendChild(el('div', '', 'By ' + deploy.by));
    box.appendChild(el('div', '', deploy.puts_back ? 'Put back ' + (version ? version.label : 'its version') + ' after a change outside voxform (voxform drift --heal)' : deploy.changed_fields === null ? 'First deploy of this agent in the history: what it changed is not known' : deploy.changed_fields.length ? 'Changed: ' + deploy.changed_fields.join(', ') : 'Changed no top-level field'));
    var diff = safeUrl(deploy.diff_url);
    if (diff) {
      var link = el('a', '', 'See the diff');
      link.href = diff;
      link.rel = 'noopener noreferrer';
      box.appendChild(link);
    }
    var job = safeUrl(deploy.ci_job_url);
    if (job) {
      var jobLink = el('a', '', 'CI job');
      jobLink.href = job;
      jobLink.rel = 'noopener noreferrer';
      box.appendChild(el('span', '', ' · '));
      box.appendChild(jobLink);
    }
    return box;
  }
`;

/**
 * How the chart draws an agent: each version's look (colour, names), and the periods it ran in. A
 * version that came back — healed, or put back outside voxform — has a period each time, so its
 * calls are drawn where they happened.
 */
const VERSION_PERIODS = String.raw`
  function versionLooks(agent, labels) {
    return agent.versions.map(function (version, i) {
      var first = seconds(version.first_call);
      var deployed = version.deploy ? seconds(version.deploy.at) : first;
      return {
        key: version.key,
        label: labels[i].short,
        title: labels[i].title,
        full: labels[i].full,
        rates: labels[i].rates,
        color: PALETTE[i % PALETTE.length],
        // Live from its deploy, or from its first call when that came while the apply was finishing.
        start: Math.min(deployed, first),
        firstCall: version.first_call,
        liveBeforeRecord: version.deploy !== null && first < deployed,
        deploy: version.deploy,
        version: version
      };
    });
  }
  /**
   * The periods, read from the bins in time order: one starts at a bin with calls of a version other
   * than the current period's. The first period of a version starts when it went live; a later one
   * at the heal that put it back, else at its bin — the bin's middle when the version before has
   * calls in it too (the calls tell the change only to the bin). Each ends where the next starts.
   */
  function versionPeriods(looks, deploys, bin, end) {
    var byTime = {};
    looks.forEach(function (look, order) {
      look.version.series.forEach(function (p) {
        if (p.calls === 0) return;
        var t = seconds(p.start);
        (byTime[t] = byTime[t] || []).push({ t: t, look: look, order: order, point: p });
      });
    });
    var periods = [], current = null;
    Object.keys(byTime).map(Number).sort(function (a, b) { return a - b; }).forEach(function (t) {
      // Within a bin the current period's calls come first: the others began after them.
      byTime[t].sort(function (a, b) { return (b.look === (current && current.look)) - (a.look === (current && current.look)) || a.order - b.order; });
      byTime[t].forEach(function (cell) {
        if (!current || current.look !== cell.look) {
          var previous = current;
          current = { look: cell.look, start: periodStart(cell, previous, periods, deploys, bin), cells: [] };
          periods.push(current);
        }
        current.cells.push(cell);
      });
    });
    periods.forEach(function (period, i) { period.end = i + 1 < periods.length ? periods[i + 1].start : end; });
    return periods;
  }
  function periodStart(cell, previous, periods, deploys, bin) {
    var look = cell.look, start;
    if (!periods.some(function (period) { return period.look === look; })) start = look.start;
    else {
      var heals = deploys.filter(function (d) { var at = seconds(d.at); return d.puts_back === look.key && at >= previous.start && at <= cell.t + bin; });
      var shared = previous.cells[previous.cells.length - 1].t === cell.t;
      start = heals.length ? seconds(heals[heals.length - 1].at) : shared ? cell.t + bin / 2 : cell.t;
    }
    return previous ? Math.max(start, previous.start) : start;
  }
`;

/** A period's bars: each spans the part of its bin inside the period (a bin shared by two periods is cut where they meet). */
const CHART_BARS = String.raw`
  function barsOf(period, bin) {
    var first = seconds(period.look.firstCall);
    return period.cells.map(function (cell) {
      var from = Math.max(cell.t, first, period.start), to = Math.min(cell.t + bin, period.end);
      if (to <= from) to = from + bin / 50;
      return { from: from, to: to, point: cell.point };
    });
  }
  /** The tinted band of each period, labelled as fully as its width allows. */
  function paintBands(u, periods) {
    var ctx = u.ctx, dpr = devicePixelRatio;
    ctx.save();
    periods.forEach(function (period) {
      var look = period.look;
      var x0 = u.valToPos(period.start, 'x', true), x1 = u.valToPos(period.end, 'x', true);
      ctx.fillStyle = look.color;
      ctx.globalAlpha = 0.08;
      ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
      ctx.globalAlpha = 1;
      ctx.fillStyle = '#222';
      ctx.font = 'bold ' + 12 * dpr + 'px system-ui, sans-serif';
      var room = x1 - x0 - 8 * dpr;
      var text = [look.label + ' · ' + look.full, look.label + ' · ' + look.title, look.label].filter(function (candidate) { return ctx.measureText(candidate).width <= room; })[0] || look.label;
      if (ctx.measureText(text).width <= room || periods.length === 1) ctx.fillText(text, x0 + 4 * dpr, u.bbox.top + 14 * dpr);
    });
    ctx.restore();
  }
  /** The bars in their version's colour (errors as their lower part), then a dashed line at each deploy. */
  function paintBarsAndMarkers(u, periods, markers) {
    var ctx = u.ctx, dpr = devicePixelRatio;
    ctx.save();
    periods.forEach(function (period) {
      period.bars.forEach(function (bar) {
        var x0 = Math.round(u.valToPos(bar.from, 'x', true)), x1 = Math.round(u.valToPos(bar.to, 'x', true));
        var w = Math.max(1, x1 - x0 - (x1 - x0 > 3 * dpr ? dpr : 0));
        var y = u.valToPos(bar.point.calls, 'y', true), y0 = u.valToPos(0, 'y', true);
        ctx.fillStyle = period.look.color;
        ctx.fillRect(x0, y, w, y0 - y);
        if (bar.point.outcomes.error > 0) {
          var ye = u.valToPos(bar.point.outcomes.error, 'y', true);
          ctx.fillStyle = ERROR_COLOR;
          ctx.fillRect(x0, ye, w, y0 - ye);
        }
      });
    });
    ctx.strokeStyle = '#6c3483';
    ctx.lineWidth = 2 * dpr;
    ctx.setLineDash([6 * dpr, 4 * dpr]);
    markers.forEach(function (marker) {
      var x = Math.round(u.valToPos(marker.t, 'x', true));
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      marker.node.style.left = u.valToPos(marker.t, 'x') + 'px';
    });
    ctx.restore();
  }
`;

/** A deploy's marker and its popup, and the tooltip of the bin under the cursor: both kept inside the chart. */
const CHART_OVERLAYS = String.raw`
  function addMarker(view, t, deploy, look) {
    var chart = view.chart, node = el('div', 'deploy-marker');
    node.tabIndex = 0;
    node.setAttribute('role', 'button');
    node.setAttribute('aria-label', (look ? look.label + ' ' : '') + (deploy.puts_back ? 'heal ' : 'deploy ') + (deploy.commit || deploy.record_id));
    if (look) node.setAttribute('data-version', look.label);
    if (deploy.puts_back) node.setAttribute('data-heal', 'true');
    var popup = deployPopup(deploy, look);
    node.appendChild(popup);
    // The popup is placed inside the chart's plot area each time it opens, so it is never cut off.
    function open() {
      node.classList.add('open');
      view.tip.style.display = 'none';
      // Placed in the whole chart's coordinates (axes included), then set relative to the marker box
      // that holds it, measured rather than assumed: the marker is offset to centre it on its line.
      var root = chart.root.getBoundingClientRect(), plot = chart.over.getBoundingClientRect(), box = node.getBoundingClientRect();
      var lineX = plot.left - root.left + chart.valToPos(t, 'x');
      popup.style.maxWidth = Math.min(280, root.width - 4) + 'px';
      // On a phone a popup can be taller than the chart: it scrolls rather than leaving it.
      popup.style.maxHeight = root.height - 4 + 'px';
      popup.style.overflowY = 'auto';
      popup.style.boxSizing = 'border-box';
      var left = placeBeside(lineX, popup.offsetWidth, root.width);
      var top = Math.max(0, Math.min(plot.top - root.top + 8, root.height - popup.offsetHeight));
      popup.style.left = left - (box.left - root.left) + 'px';
      popup.style.top = top - (box.top - root.top) + 'px';
    }
    function close() { if (!node.contains(document.activeElement)) node.classList.remove('open'); }
    node.addEventListener('mouseenter', open);
    node.addEventListener('focus', open);
    node.addEventListener('mouseleave', close);
    node.addEventListener('focusout', function () { setTimeout(close, 0); });
    chart.over.appendChild(node);
    view.markers.push({ t: t, node: node });
  }
  function showTip(u, view) {
    var tip = view.tip, bin = view.bin, left = u.cursor.left;
    if (left === undefined || left < 0 || view.markers.some(function (m) { return m.node.classList.contains('open'); })) { tip.style.display = 'none'; return; }
    var t = u.posToVal(left, 'x');
    var period = null, bar = null;
    view.periods.forEach(function (p) { if (t >= p.start && t < p.end) period = p; });
    if (period) period.bars.forEach(function (candidate) { if (t >= candidate.from && t < candidate.to) bar = candidate; });
    tip.textContent = '';
    if (!period) { tip.style.display = 'none'; return; }
    tip.appendChild(el('strong', '', period.look.label + ' · ' + period.look.full));
    if (bar) {
      var p = bar.point;
      tip.appendChild(el('div', '', timeText(seconds(p.start), bin) + ' + ' + widthText(bin) + ': ' + p.calls + (p.calls === 1 ? ' call' : ' calls')));
      var parts = [];
      Object.keys(p.outcomes).forEach(function (k) { if (p.outcomes[k] > 0) parts.push(k + ' ' + p.outcomes[k]); });
      tip.appendChild(el('div', '', parts.join(', ')));
    } else tip.appendChild(el('div', '', 'no calls at ' + timeText(t, bin)));
    tip.style.display = 'block';
    tip.style.left = placeBeside(left, tip.offsetWidth, u.over.clientWidth) + 'px';
    tip.style.top = Math.max(0, Math.min((u.cursor.top || 0) + 12, u.over.clientHeight - tip.offsetHeight)) + 'px';
  }
`;

/** One agent's chart: uPlot for the scales and axes, the periods' bands, bars and markers drawn over them. */
const DRAW_CHART = String.raw`
  function drawChart(agent, index, looks) {
    var host = document.getElementById('chart-' + index);
    var bin = agent.series.bin_seconds;
    var xs = agent.series.points.map(function (p) { return seconds(p.start); });
    var lastCall = Math.max.apply(null, agent.versions.map(function (v) { return seconds(v.last_call); }));
    var end = Math.max(lastCall, xs.length ? xs[xs.length - 1] + bin : lastCall);
    var periods = versionPeriods(looks, agent.deploys, bin, end);
    // Deploys that started no version in the chart: heals, and deploys no call ran with yet.
    var extraDeploys = agent.deploys.filter(function (d) { return !looks.some(function (look) { return look.deploy && look.deploy.record_id === d.record_id; }); });
    var times = looks.map(function (look) { return look.start; }).concat(extraDeploys.map(function (d) { return seconds(d.at); }), [end]);
    var min = Math.min.apply(null, times), max = Math.max.apply(null, times);
    var pad = Math.max((max - min) * 0.03, bin);
    min -= pad; max += pad;
    var top = 1;
    agent.versions.forEach(function (v) { v.series.forEach(function (p) { top = Math.max(top, p.calls); }); });
    var view = { bin: bin, periods: periods, markers: [], tip: el('div', 'chart-tip'), chart: null };
    view.tip.setAttribute('role', 'status');
    periods.forEach(function (period) { period.bars = barsOf(period, bin); });
    function sizeOf() {
      var width = Math.max(280, host.clientWidth || 900);
      return { width: width, height: width < 600 ? 240 : 300 };
    }
    var size = sizeOf();
    var chart = new uPlot({
      width: size.width,
      height: size.height,
      legend: { show: false },
      cursor: { y: false, points: { show: false }, drag: { x: false, y: false } },
      // Every other time on the page is UTC: without tzDate, uPlot labels the axis in the browser's zone.
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      scales: { x: { time: true, range: function () { return [min, max]; } }, y: { range: function () { return [0, top * 1.2]; } } },
      axes: [{ stroke: '#444', space: 90 }, { stroke: '#444', label: 'calls per ' + widthText(bin), size: 56 }],
      series: [{}, { label: 'calls', stroke: 'transparent', points: { show: false } }],
      hooks: {
        drawClear: [function (u) { paintBands(u, periods); }],
        draw: [function (u) { paintBarsAndMarkers(u, periods, view.markers); }],
        setCursor: [function (u) { showTip(u, view); }]
      }
    }, [xs, agent.series.points.map(function (p) { return p.calls; })], host);
    view.chart = chart;
    chart.over.appendChild(view.tip);
    looks.forEach(function (look) { if (look.deploy) addMarker(view, look.start, look.deploy, look); });
    extraDeploys.forEach(function (deploy) { addMarker(view, seconds(deploy.at), deploy, looks.filter(function (look) { return look.key === deploy.puts_back; })[0] || null); });
    host.addEventListener('mouseleave', function () { view.tip.style.display = 'none'; });
    window.addEventListener('resize', function () {
      var next = sizeOf();
      if (next.width !== size.width) { size = next; chart.setSize(next); }
    });
    chart.redraw(false, false);
    host.setAttribute('data-points', String(xs.length));
    host.setAttribute('data-deploys', String(view.markers.length));
    host.setAttribute('data-rendered', 'true');
  }
`;

/** Each version's rates as a point and its 95% interval, one small plot per rate, drawn in SVG. */
const DRAW_RATES = String.raw`
  var RATES = [['error_rate', 'Error rate'], ['transfer_rate', 'Transfer rate'], ['tool_failure_rate', 'Tool failure rate']];
  function rateOf(version, key) { return key === 'tool_failure_rate' ? version.metrics.tool_calls.failure_rate : version.metrics[key]; }
  function drawRates(agent, index, looks) {
    var host = document.getElementById('rates-' + index);
    function render() {
      host.textContent = '';
      var width = Math.max(260, host.clientWidth || 600);
      RATES.forEach(function (rate) {
        var rows = agent.versions.map(function (v, i) { return { look: looks[i], r: rateOf(v, rate[0]) }; }).filter(function (row) { return row.r.value !== null; });
        if (rows.length === 0) return;
        var top = Math.max.apply(null, rows.map(function (row) { return row.r.high; }));
        top = top <= 0 ? 0.01 : Math.min(1, top * 1.15);
        // Narrow: the figures go under each interval instead of beside it.
        var narrow = width < 520, labelW = 34, textW = narrow ? 0 : 220, left = labelW + 6, right = width - textW - 10, rowH = narrow ? 40 : 26;
        var height = rows.length * rowH + 22;
        var figure = el('figure', 'rate-plot');
        figure.appendChild(el('figcaption', '', rate[1] + ' per version, with its 95% interval'));
        var plot = svg('svg', { width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': rate[1] + ' per version' });
        function xOf(v) { return left + (right - left) * (v / top); }
        plot.appendChild(svg('line', { x1: left, x2: right, y1: height - 16, y2: height - 16, stroke: '#999' }));
        [0, top / 2, top].forEach(function (v) {
          plot.appendChild(svg('text', { x: xOf(v), y: height - 3, 'text-anchor': v === 0 ? 'start' : v === top ? 'end' : 'middle', 'font-size': 11, fill: '#555' }, percent(v)));
        });
        rows.forEach(function (row, i) {
          var y = 12 + i * rowH;
          var g = svg('g', { class: 'rate-row', 'data-version': row.look.label, 'data-low': row.r.low, 'data-high': row.r.high });
          g.appendChild(svg('text', { x: 0, y: y + 4, 'font-size': 12, 'font-weight': 'bold', fill: row.look.color }, row.look.label));
          g.appendChild(svg('line', { class: 'interval', x1: xOf(row.r.low), x2: xOf(row.r.high), y1: y, y2: y, stroke: row.look.color, 'stroke-width': 3 }));
          g.appendChild(svg('line', { x1: xOf(row.r.low), x2: xOf(row.r.low), y1: y - 6, y2: y + 6, stroke: row.look.color, 'stroke-width': 2 }));
          g.appendChild(svg('line', { x1: xOf(row.r.high), x2: xOf(row.r.high), y1: y - 6, y2: y + 6, stroke: row.look.color, 'stroke-width': 2 }));
          g.appendChild(svg('circle', { class: 'estimate', cx: xOf(row.r.value), cy: y, r: 4.5, fill: '#fff', stroke: row.look.color, 'stroke-width': 2 }));
          var text = row.look.rates[rate[0]] + ', ' + row.r.count + ' of ' + row.r.of;
          g.appendChild(svg('text', narrow ? { x: left, y: y + 20, 'font-size': 12, fill: '#222' } : { x: width - textW, y: y + 4, 'font-size': 12, fill: '#222' }, text));
          g.appendChild(svg('title', {}, row.look.label + ' ' + rate[1] + ': ' + text));
          plot.appendChild(g);
        });
        figure.appendChild(plot);
        host.appendChild(figure);
      });
    }
    render();
    var last = host.clientWidth;
    window.addEventListener('resize', function () { if (host.clientWidth !== last) { last = host.clientWidth; render(); } });
  }
`;

/** The legend under a chart: each version's colour, label, commit, who deployed and its calls. */
const DRAW_LEGEND = String.raw`
  function drawLegend(index, looks) {
    var list = document.getElementById('legend-' + index);
    looks.forEach(function (look) {
      var item = el('li', '');
      var swatch = el('span', 'swatch');
      swatch.style.background = look.color;
      item.appendChild(swatch);
      item.appendChild(el('strong', '', look.label + ' '));
      var d = look.deploy, calls = look.version.metrics.calls;
      item.appendChild(el('span', '', look.full + (d ? ' · deployed ' + d.at.replace('T', ' ').slice(0, 19) + ' UTC' : '') + ' · ' + calls + (calls === 1 ? ' call' : ' calls')));
      list.appendChild(item);
    });
    var errors = el('li', '');
    var swatch = el('span', 'swatch');
    swatch.style.background = ERROR_COLOR;
    errors.appendChild(swatch);
    errors.appendChild(el('span', '', 'errors (the lower part of a bar); dashed line: a deploy (hover or focus it)'));
    list.appendChild(errors);
  }
`;

export const HTML_CLIENT_SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var labels = JSON.parse(document.getElementById('report-labels').textContent);
${PAGE_HELPERS}${VERSION_PERIODS}${CHART_BARS}${CHART_OVERLAYS}${DRAW_CHART}${DRAW_RATES}${DRAW_LEGEND}  /** In place of a chart that could not be drawn: why, visibly, rather than an empty area. */
  function chartFailed(index, error) {
    var host = document.getElementById('chart-' + index);
    host.textContent = '';
    host.appendChild(el('p', 'chart-failed', 'The chart could not be drawn in this browser (' + String(error) + '). The table below has every figure.'));
    host.setAttribute('data-rendered', 'false');
    console.error(error);
  }
  data.agents.forEach(function (agent, index) {
    var looks = versionLooks(agent, labels[index]);
    try {
      drawChart(agent, index, looks);
    } catch (error) {
      chartFailed(index, error);
    }
    drawLegend(index, looks);
    drawRates(agent, index, looks);
  });
  document.body.setAttribute('data-charts-ready', String(data.agents.length));
})();
`;
