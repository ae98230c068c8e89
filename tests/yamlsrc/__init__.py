"""Tests of sim.yamlsrc, one file per module."""
