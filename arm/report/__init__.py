"""A one-page HTML report per compiled model: where each node runs, what each layer costs, where accuracy goes.

    build_report(flow_result, model_spec, ...) -> Report      (arm.report.build)
    render_html(report) -> str                                (arm.report.page)

The page is self-contained (data, styles, scripts and the chart library inline) and works offline.
"""
