"""Reinforcement-learning adapters (the optional extra `knapper[rl]`, docs/adapters.md).

In: any compiled ruleset. Out: a PettingZoo AEC environment (`pettingzoo_env`) and an
OpenSpiel game (`openspiel_game`), both built on the same two pieces: a fixed-length vector
made from a seat's own observation (`encode`) and a fixed action space of option indexes,
its size measured from seeded random games (`actions`). The adapters know no ruleset's
names; numpy, PettingZoo and OpenSpiel are imported only by the modules that need them.
"""
