"""Tests of sim.scenario, one file per module."""
