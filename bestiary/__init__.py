"""The shipped bestiary, installed as the package ``sim.bestiary`` (pyproject.toml maps this
folder there) so that ``use: wolf`` finds it from any folder; sim.scenario.bestiary reads its
YAML files with importlib.resources. This file only makes the folder a package: an editable
install finds a mapped folder by it."""
