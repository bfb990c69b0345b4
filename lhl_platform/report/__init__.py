"""What every suite's report shares: layout and labels, the HTML shell, the verdict, cost, figure primitives,
bootstrap helpers, publishing mechanics, and the shared report of a suite's sections (`suite_*.py`)."""
