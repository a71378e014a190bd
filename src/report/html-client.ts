/**
 * The script the HTML report runs in the browser, inlined after uPlot: one chart per agent, with a
 * marker at each deploy whose popup names the commit and links to the diff. Every text goes in with
 * `textContent` and every link is checked to be http(s): the data came from the service and the repository.
 */

/** The page's helpers: colours, element building, URL checks, a deploy's popup. */
const PAGE_HELPERS = String.raw`  var COLORS = { calls: '#1f4e8c', completed: '#2e8540', voicemail: '#8a6d3b', timeout: '#b35900', error: '#c0392b', other: '#7f8c8d' };
  var GROUPS = ['completed', 'voicemail', 'timeout', 'error', 'other'];
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function safeUrl(url) {
    return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
  }
  function popup(deploy) {
    var box = el('div', 'deploy-popup');
    box.appendChild(el('strong', '', 'Deploy ' + deploy.at.replace('T', ' ').slice(0, 19) + ' UTC'));
    if (deploy.pull_request !== null) box.appendChild(el('div', '', 'Pull request #' + deploy.pull_request));
    box.appendChild(el('div', '', 'Commit ' + (deploy.commit || 'unknown') + (deploy.uncommitted ? ' with uncommitted changes' : '') + (deploy.branch ? ' on ' + deploy.branch : '')));
    box.appendChild(el('div', '', 'By ' + deploy.by));
    box.appendChild(el('div', '', deploy.changed_fields.length ? 'Changed: ' + deploy.changed_fields.join(', ') : 'First deploy of this agent in the history'));
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

/** One agent's chart: the series, the deploy lines drawn on the canvas, the markers over them. */
const DRAW_CHART = String.raw`  function drawChart(agent, index) {
    var host = document.getElementById('chart-' + index);
    var xs = agent.series.points.map(function (p) { return Date.parse(p.start) / 1000; });
    var columns = [xs, agent.series.points.map(function (p) { return p.calls; })];
    GROUPS.forEach(function (g) { columns.push(agent.series.points.map(function (p) { return p.outcomes[g]; })); });
    var deployTimes = agent.deploys.map(function (d) { return Date.parse(d.at) / 1000; });
    var all = xs.concat(deployTimes);
    var min = Math.min.apply(null, all), max = Math.max.apply(null, all);
    if (min === max) { min -= agent.series.bin_seconds; max += agent.series.bin_seconds; }
    var series = [{}, { label: 'calls', stroke: COLORS.calls, width: 2 }];
    GROUPS.forEach(function (g) { series.push({ label: g, stroke: COLORS[g], width: 1 }); });
    var markers = [];
    var chart = new uPlot({
      width: Math.max(480, Math.min(1100, host.clientWidth || 900)),
      height: 280,
      scales: { x: { time: true, range: function () { return [min, max]; } } },
      series: series,
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#6c3483';
          ctx.lineWidth = 2 * devicePixelRatio;
          ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
          deployTimes.forEach(function (t, i) {
            var x = Math.round(u.valToPos(t, 'x', true));
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            if (markers[i]) markers[i].style.left = u.valToPos(t, 'x') + 'px';
          });
          ctx.restore();
        }]
      }
    }, columns, host);
    agent.deploys.forEach(function (deploy) {
      var marker = el('div', 'deploy-marker');
      marker.tabIndex = 0;
      marker.setAttribute('role', 'button');
      marker.setAttribute('aria-label', 'Deploy ' + (deploy.commit || deploy.record_id));
      marker.appendChild(popup(deploy));
      chart.over.appendChild(marker);
      markers.push(marker);
    });
    chart.redraw(false, false);
    host.setAttribute('data-points', String(xs.length));
    host.setAttribute('data-deploys', String(agent.deploys.length));
    host.setAttribute('data-rendered', 'true');
  }
`;

export const HTML_CLIENT_SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
${PAGE_HELPERS}${DRAW_CHART}  data.agents.forEach(drawChart);
  document.body.setAttribute('data-charts-ready', String(data.agents.length));
})();
`;
