"""hazardkit builder: produces the datasets (HazardForge, source adapters, reconstruction, publishing).

May import eval_kit (for the benchmark specs); eval_kit never imports builder.
"""
