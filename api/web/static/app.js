// Tern's dashboard, in the browser: only what HTML cannot do alone. Every page works without it; it adds copy
// buttons, confirmations, the team switcher's change-to-go and the charts (uPlot over the REST routes, with the
// session's nonce). Loaded as a file from this site: the Content-Security-Policy allows no inline script.
(function () {
  'use strict';

  /** A button with data-copy="ID" puts the text of #ID on the clipboard. */
  function onCopy(button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target || !navigator.clipboard) return;
    navigator.clipboard.writeText(target.textContent.trim()).then(function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(function () {
        button.textContent = label;
      }, 1500);
    });
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-copy]');
    if (button) onCopy(button);
  });

  /** A form with data-confirm asks before it is sent. */
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var question = form.getAttribute && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  });

  /** A select with data-autosubmit sends its form when it changes (its button stays for keyboards and no script). */
  document.addEventListener('change', function (event) {
    var select = event.target;
    if (select.matches && select.matches('select[data-autosubmit]')) select.form.requestSubmit();
  });

  var body = document.body;
  function restHeaders() {
    var headers = { 'X-WP-Nonce': body.getAttribute('data-nonce') || '' };
    var team = body.getAttribute('data-team');
    if (team) headers['X-Account-Id'] = team;
    return headers;
  }

  /** The value at a dotted path of a JSON answer. */
  function at(value, path) {
    return path.split('.').reduce(function (v, key) {
      return v === null || v === undefined ? undefined : v[key];
    }, value);
  }

  /**
   * figure.chart[data-src]: GET data-src (a REST route) and draw data-series (JSON: [{label, field}]) of the
   * rows at data-rows, x from data-x (ISO dates or epoch seconds).
   */
  function drawChart(figure) {
    if (typeof uPlot === 'undefined') return;
    fetch(figure.getAttribute('data-src'), { headers: restHeaders(), credentials: 'same-origin' })
      .then(function (answer) {
        return answer.ok ? answer.json() : Promise.reject(answer.status);
      })
      .then(function (json) {
        var rows = at(json, figure.getAttribute('data-rows') || '') || json;
        var xField = figure.getAttribute('data-x');
        var series = JSON.parse(figure.getAttribute('data-series'));
        var xs = rows.map(function (row) {
          var x = at(row, xField);
          return typeof x === 'number' ? x : Date.parse(x) / 1000;
        });
        var data = [xs].concat(
          series.map(function (s) {
            return rows.map(function (row) {
              return Number(at(row, s.field)) || 0;
            });
          }),
        );
        var palette = ['#2f7fd1', '#c2410c', '#7c3aed', '#15803d', '#b91c1c'];
        var options = {
          width: Math.max(240, figure.clientWidth),
          height: 220,
          series: [{}].concat(
            series.map(function (s, i) {
              return { label: s.label, stroke: palette[i % palette.length], width: 2 };
            }),
          ),
          // Counts: the y axis from 0, ticks at whole steps only (1, 2, 5, 10, …), and 0 to 1 when nothing was sent
          // (uPlot would otherwise draw 0 to 100, or ticks of 0.25 recipient).
          scales: {
            y: {
              range: function (u, min, max) {
                return [0, Math.max(1, Math.ceil(max * 1.1))];
              },
            },
          },
          axes: [{ stroke: getComputedStyle(body).color }, { stroke: getComputedStyle(body).color, incrs: WHOLE_STEPS, values: yValues(figure) }],
        };
        var holder = figure.querySelector('.plot');
        holder.textContent = '';
        var plot = new uPlot(options, data, holder);
        // The chart follows its figure's width (a phone turned, a window resized).
        new ResizeObserver(function () {
          plot.setSize({ width: Math.max(240, figure.clientWidth), height: 220 });
        }).observe(figure);
      })
      .catch(function () {
        /* The table beside the chart holds the same numbers. */
      });
  }

  /** The steps a count's axis may tick at: whole numbers only. */
  var WHOLE_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 1e8, 1e9];

  /** The y axis's labels, also written to the figure's data-y-ticks (what was drawn, for tests and tools). */
  function yValues(figure) {
    return function (u, splits) {
      var labels = splits.map(function (v) {
        return String(v);
      });
      figure.setAttribute('data-y-ticks', labels.join(' '));
      return labels;
    };
  }

  /**
   * Each cell of a dashboard table gets its column's heading as data-label, which the stylesheet shows above the
   * value when a narrow screen stacks the row's cells (the heading row is hidden then).
   */
  function labelCells(root) {
    root.querySelectorAll('.table-wrap table').forEach(function (table) {
      var headings = Array.prototype.map.call(table.querySelectorAll('thead th'), function (th) {
        return th.textContent.trim();
      });
      table.querySelectorAll('tbody tr').forEach(function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          if (headings[i]) cell.setAttribute('data-label', headings[i]);
        });
      });
    });
  }

  function drawCharts(root) {
    root.querySelectorAll('figure.chart[data-src]').forEach(drawChart);
  }

  document.addEventListener('DOMContentLoaded', function () {
    labelCells(document);
    drawCharts(document);
  });
  document.addEventListener('htmx:afterSwap', function (event) {
    labelCells(event.target);
    drawCharts(event.target);
  });
})();
