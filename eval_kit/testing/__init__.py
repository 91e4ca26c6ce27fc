"""Test and demo helpers, never used by the product code paths: tiny random-weight models of the real classes
(`tiny_vlm`, `tiny_diffusion`) built offline from configs, and synthetic data with known truth
(`synthetic_references`, `synthetic_datasets`). Ids and configs they make are always labelled synthetic.
"""
