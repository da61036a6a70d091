"""The op test harness: every op's test cases, through the flow, checked against the TOSA reference model."""
