/* Draws the report from the JSON in #report-data. Each chart's data is also written to its canvas's
   data-chart attribute, so a test can check what was drawn against the numbers it was drawn from. */
(function () {
  "use strict";
  const report = JSON.parse(document.getElementById("report-data").textContent);
  const PARTITION_COLOURS = ["#2f6fdb", "#1f9d8b", "#7a4fd6", "#c27c0e", "#3c8d2f", "#b0457a"];
  const CPU_COLOUR = "#d2452d";
  const number = (value) => (value === null || value === undefined ? "–" : Number(value).toLocaleString("en-US"));
  const fixed = (value, digits) => (value === null || value === undefined ? "–" : Number(value).toFixed(digits));
  const percent = (value) => (100 * value).toFixed(1) + " %";
  const colourOf = (partition) => (partition === null ? CPU_COLOUR : PARTITION_COLOURS[partition % PARTITION_COLOURS.length]);

  function element(tag, attributes, children) {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([key, value]) => {
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    });
    (children || []).forEach((child) => node.appendChild(typeof child === "string" ? document.createTextNode(child) : child));
    return node;
  }

  function row(cells, attributes) {
    return element("tr", attributes, cells.map(([value, kind]) => element("td", { class: kind || "", text: String(value) })));
  }

  function fillTable(id, rows) {
    const body = document.querySelector("#" + id + " tbody");
    rows.forEach((tr) => body.appendChild(tr));
  }

  function keyValueTable(title, entries) {
    return element("table", {}, [
      element("thead", {}, [element("tr", {}, [element("th", { class: "text", colspan: "2", text: title })])]),
      element("tbody", {}, entries.map(([key, value]) => row([[key, "text"], [value, "text"]]))),
    ]);
  }

  function drawChart(id, config) {
    const canvas = document.getElementById(id);
    const chart = new Chart(canvas, config);
    canvas.setAttribute(
      "data-chart",
      JSON.stringify({
        labels: chart.data.labels,
        datasets: chart.data.datasets.map((set) => ({ label: set.label, data: set.data })),
      })
    );
    return chart;
  }

  // Header ------------------------------------------------------------------------------------
  function renderHeader() {
    const header = report.header;
    const stages = Object.entries(header.stage_seconds).map(([stage, seconds]) => [stage, seconds.toFixed(1) + " s"]);
    const arenas = Object.entries(header.arena_bytes).map(([name, bytes]) => [name, number(bytes) + " B"]);
    const vela = Object.entries(header.vela_config);
    const versions = Object.entries(header.versions);
    const box = document.getElementById("header");
    box.appendChild(element("h1", { text: header.model + " on " + header.target }));
    box.appendChild(
      element("div", { class: "header-grid" }, [
        keyValueTable("model", [["model", header.model], ["target", header.target], [".pte size", number(header.pte_bytes) + " B"]]),
        keyValueTable("Vela configuration", vela.length ? vela : [["Vela", "not used by this target"]]),
        keyValueTable("compile time per stage", stages),
        keyValueTable("memory", arenas),
        keyValueTable("versions", versions),
      ])
    );
    report.notes.forEach((note) => box.appendChild(element("p", { class: "hint", text: note })));
  }

  // At a glance ---------------------------------------------------------------------------------
  function operatorLabel(index) {
    const layer = report.vela_layers[index];
    return "#" + index + " " + layer.operator + " " + (layer.layer || layer.tensor);
  }

  function renderAnswers() {
    const box = document.getElementById("answers");
    const total = report.partitions.reduce((sum, partition) => sum + partition.total_cycles, 0) || 1;
    const cycles = element("div", { class: "answer cycles", id: "answer-cycles" }, [
      element("h2", { text: "Which ten operators cost the most cycles" }),
    ]);
    box.appendChild(cycles);
    if (report.top_layers.length) {
      cycles.appendChild(element("div", { class: "answer-chart" }, [element("canvas", { id: "top-chart" })]));
      const top = report.top_layers.map((index) => report.vela_layers[index]);
      drawChart("top-chart", {
        type: "bar",
        data: {
          labels: report.top_layers.map((index) => operatorLabel(index) + " (" + percent(report.vela_layers[index].cycles / total) + ")"),
          datasets: [{ label: "cycles", data: top.map((layer) => layer.cycles), backgroundColor: "#2f6fdb" }],
        },
        options: { indexAxis: "y", animation: false, maintainAspectRatio: false, plugins: { legend: { display: false } } },
      });
    } else {
      cycles.appendChild(element("p", { text: "Vela did not run for this target." }));
    }

    const worst = report.errors.find((error) => error.layer === report.worst_layer);
    const shown = (error) => (error.sqnr_delegate_db !== null ? error.sqnr_delegate_db : error.sqnr_quantized_db);
    const text = worst
      ? worst.layer + " (" + worst.op + ", depth " + worst.depth + "): SQNR falls by " + fixed(worst.drop_db, 1) +
        " dB to " + fixed(shown(worst), 1) + " dB"
      : "no quantization error to show";
    const last = report.errors[report.errors.length - 1];
    const output = last
      ? "Model output (" + last.layer + "): SQNR " + fixed(shown(last), 1) + " dB to float" +
        (last.lsb_max !== null ? ", at most " + last.lsb_max + " LSB from the quantized torch model." : ".")
      : "";
    const accuracy = element("div", { class: "answer accuracy", id: "answer-accuracy" }, [
      element("h2", { text: "Which layer loses the most accuracy" }),
      element("p", { id: "worst-layer", "data-layer": worst ? worst.layer : "", text: text }),
    ]);
    box.appendChild(accuracy);
    if (report.errors.length) {
      accuracy.appendChild(element("div", { class: "answer-chart" }, [element("canvas", { id: "drop-chart" })]));
      const isWorst = (error) => error.layer === report.worst_layer;
      drawChart("drop-chart", {
        type: "bar",
        data: {
          labels: report.errors.map((error) => error.depth + " " + error.layer),
          datasets: [
            {
              label: "SQNR drop (dB)",
              data: report.errors.map((error) => error.drop_db),
              backgroundColor: report.errors.map((error) => (isWorst(error) ? "#d2452d" : "#f0b7ab")),
            },
          ],
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          plugins: { legend: { display: false } },
          scales: { x: { title: { display: true, text: "depth" }, ticks: { display: false } }, y: { title: { display: true, text: "SQNR drop (dB)" } } },
        },
      });
    }
    accuracy.appendChild(element("p", { class: "hint", text: output }));
  }

  // Placement -----------------------------------------------------------------------------------
  function renderPlacement() {
    const strip = document.getElementById("placement-strip");
    const nodes = report.placement;
    nodes.forEach((node, index) => {
      const onCpu = node.partition === null;
      const classes = ["cell", node.kind];
      if (onCpu) {
        classes.push("cpu");
        if (index === 0 || nodes[index - 1].partition !== null) classes.push("island-start");
        if (index === nodes.length - 1 || nodes[index + 1].partition !== null) classes.push("island-end");
      }
      const where = onCpu ? "CPU: " + node.reason : node.backend + " partition " + node.partition;
      const cell = element("div", { class: classes.join(" "), title: node.name + " (" + node.op + ")\n" + where });
      if (!onCpu) cell.style.background = colourOf(node.partition);
      strip.appendChild(cell);
    });
    const partitions = [...new Set(nodes.filter((node) => node.partition !== null).map((node) => node.partition))];
    const legend = document.getElementById("placement-legend");
    partitions.forEach((partition) => {
      const count = nodes.filter((node) => node.partition === partition).length;
      legend.appendChild(element("span", {}, [element("i", { style: "background:" + colourOf(partition) }), "partition " + partition + " (" + count + " nodes)"]));
    });
    const cpuCount = nodes.filter((node) => node.partition === null).length;
    legend.appendChild(element("span", {}, [element("i", { style: "background:" + CPU_COLOUR }), "CPU (" + cpuCount + " nodes)"]));
    fillTable(
      "cpu-table",
      nodes
        .map((node, index) => [node, index])
        .filter(([node]) => node.partition === null)
        .map(([node, index]) => row([[index], [node.name, "text"], [node.op, "text"], [node.layer || "–", "text"], [node.reason, "text"]]))
    );
  }

  // Time ----------------------------------------------------------------------------------------
  function renderTime() {
    fillTable(
      "partition-table",
      report.partitions.map((p) =>
        row([[p.partition], [number(p.total_cycles)], [percent(p.share)], [number(p.compute_cycles)], [number(p.macs)], [number(p.sram_bytes)], [number(p.flash_bytes)], [fixed(p.inference_ms, 3)]])
      )
    );
    if (report.cpu_cost) {
      const cost = report.cpu_cost;
      document.getElementById("cpu-cost").appendChild(
        element("p", { class: "hint", text: "CPU side (outside the NPU): " + number(cost.instructions) + " instructions per inference, " + number(cost.planned_bytes) + " B planned memory, " + number(cost.arena_bytes) + " B runtime arena (" + cost.source + ")." })
      );
    }
    const layers = report.vela_layers;
    const total = report.partitions.reduce((sum, partition) => sum + partition.total_cycles, 0) || 1;
    const flash = (layer) => layer.on_chip_flash_cycles + layer.off_chip_flash_cycles;
    fillTable(
      "top-table",
      report.top_layers.map((index, rank) => {
        const layer = layers[index];
        return row([[rank + 1], [index], [layer.operator, "text"], [layer.layer || layer.tensor, "text"], [number(layer.cycles)], [percent(layer.cycles / total)], [number(layer.compute_cycles)], [number(layer.sram_cycles)], [number(flash(layer))], [number(layer.macs)]]);
      })
    );
    fillTable(
      "vela-table",
      layers.map((layer, index) =>
        row(
          [[index], [layer.partition], [layer.operator, "text"], [layer.tensor, "text"], [layer.layer || "–", "text"], [number(layer.cycles)], [number(layer.compute_cycles)], [number(layer.sram_cycles)], [number(layer.dram_cycles)], [number(layer.on_chip_flash_cycles)], [number(layer.off_chip_flash_cycles)], [number(layer.macs)], [number(layer.staging_bytes)]],
          report.top_layers.includes(index) ? { class: "highlight" } : {}
        )
      )
    );
    const labels = layers.map((_, index) => operatorLabel(index));
    const top = new Set(report.top_layers);
    drawChart("cycles-chart", {
      type: "bar",
      data: {
        labels: labels,
        datasets: [
          {
            label: "operator cycles",
            data: layers.map((layer) => layer.cycles),
            backgroundColor: layers.map((_, index) => (top.has(index) ? "#d2452d" : "#9db8e8")),
          },
        ],
      },
      options: chartOptions("cycles", false),
    });
    drawChart("kinds-chart", {
      type: "bar",
      data: {
        labels: labels,
        datasets: [
          { label: "compute (NPU) cycles", data: layers.map((layer) => layer.compute_cycles), backgroundColor: "#2f6fdb" },
          { label: "SRAM access cycles", data: layers.map((layer) => layer.sram_cycles), backgroundColor: "#1f9d8b" },
          { label: "flash access cycles", data: layers.map(flash), backgroundColor: "#c27c0e" },
        ],
      },
      options: chartOptions("cycles", true),
    });
  }

  function chartOptions(yTitle, legend) {
    return {
      animation: false,
      maintainAspectRatio: false,
      plugins: { legend: { display: legend } },
      // Tick labels only while they stay readable; every bar has a tooltip with its label.
      scales: { x: { ticks: { display: report.vela_layers.length <= 40, autoSkip: true, maxRotation: 60 } }, y: { title: { display: true, text: yTitle } } },
    };
  }

  // Error ---------------------------------------------------------------------------------------
  function renderError() {
    const errors = report.errors;
    document.getElementById("error-hint").textContent = errors.length
      ? "The " + report.error_samples + " calibration input(s) run layer by layer through the float model, the quantized torch model and the delegate (" + report.error_reference + "). SQNR and cosine are against the float model; LSB is the delegate's int difference to the quantized torch model on the layer's own grid (the delegate runs its whole partition, so a difference made early is carried on). The drop is what a layer loses against the worst layer feeding it: the highlighted layer loses the most."
      : "No quantization error to show.";
    fillTable(
      "error-table",
      errors.map((e) =>
        row(
          [[e.depth], [e.layer, "text"], [e.op, "text"], [e.where, "text"], [fixed(e.sqnr_quantized_db, 2)], [fixed(e.sqnr_delegate_db, 2)], [fixed(e.cosine_delegate, 5)], [e.lsb_max === null ? "–" : e.lsb_max], [fixed(e.lsb_mean, 3)], [fixed(e.drop_db, 2)]],
          Object.assign({ "data-layer": e.layer }, e.layer === report.worst_layer ? { class: "highlight" } : {})
        )
      )
    );
    if (!errors.length) return;
    const worst = (e) => e.layer === report.worst_layer;
    drawChart("error-chart", {
      type: "line",
      data: {
        labels: errors.map((e) => e.depth + " " + e.layer),
        datasets: [
          { label: "SQNR quantized torch vs float (dB)", data: errors.map((e) => e.sqnr_quantized_db), borderColor: "#2f6fdb", yAxisID: "y", pointRadius: errors.map((e) => (worst(e) ? 7 : 2)) },
          { label: "SQNR delegate vs float (dB)", data: errors.map((e) => e.sqnr_delegate_db), borderColor: "#d2452d", yAxisID: "y", pointRadius: errors.map((e) => (worst(e) ? 9 : 2)), pointBackgroundColor: errors.map((e) => (worst(e) ? "#d2452d" : "#fff")) },
          { label: "LSB max, delegate vs quantized torch", data: errors.map((e) => e.lsb_max), borderColor: "#7a4fd6", borderDash: [4, 3], yAxisID: "lsb", pointRadius: 2 },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: "depth (layer)" } },
          y: { title: { display: true, text: "SQNR (dB)" } },
          lsb: { position: "right", title: { display: true, text: "LSB" }, grid: { drawOnChartArea: false }, beginAtZero: true },
        },
      },
    });
  }

  renderHeader();
  renderAnswers();
  renderPlacement();
  renderTime();
  renderError();
  document.body.setAttribute("data-rendered", "ok");
})();
