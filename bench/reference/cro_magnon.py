"""Reference Cro-Magnon for benchmarks: plain Python, random agents.

``playout(seed, players, adjacency)`` plays one game for 2..6 players on the
map given as ``{territory: [neighbour, ...]}`` (territory order is the dict's
key order) and returns the number of counted decisions; a baseline for the
interpreter's speed only.

It plays the rules of rulesets/cro-magnon/cro-magnon.knap, with the same
decisions and options in the same order, so decisions per game can be
compared with the interpreter's (the dice come from another generator, so
only the distributions agree; bench/cro_magnon_replay.py feeds it the
interpreter's dice and picks and compares game by game). The readings it
shares with the ruleset:
the new bands of all dice showing 1 or 2 are placed together, n // k on each
of the k controlled territories and the n % k left over on different ones of
the tribe's choosing, before any die showing 3 or 4 is used; such a die moves
up to that many bands one space each, a band that moved on it not moving
again on it; a migration event with a result of zero or less moves one band
to a neighbouring territory or loses it, as the tribe chooses, and a positive
result does nothing; Intimidate moves up to 2 of the bands of the side with
less fire into one adjacent territory that side chooses; "seat order" for
other players in the interaction phase is plain seat index order.
"""

import random
import time

START_YEAR = 30000
END_YEAR = 4500
YEAR_STEP = 500
START_BANDS = 6
MAX_MIGRATIONS = 4
WIN_TERRITORIES = 15
WIN_PER_CATEGORY = 2

HEALTH, HUNTING, PREY, TOOLS, FIRE, CLOTHING = 0, 1, 2, 3, 4, 5
GATHERING, SHELTER, RELIGION, ART, FISHING = 6, 7, 8, 9, 10
CATEGORY_SIZES = (
    (HEALTH, 6),
    (HUNTING, 8),
    (PREY, 8),
    (TOOLS, 8),
    (FIRE, 6),
    (CLOTHING, 6),
    (GATHERING, 6),
    (SHELTER, 6),
    (RELIGION, 6),
    (ART, 6),
    (FISHING, 6),
)
CATEGORY_COUNT = len(CATEGORY_SIZES)
# ADVANCE_CATEGORY[i] is the category of advance i; the advances table rows
# 1..48 are advances 0..47 and rows 50..73 are advances 48..71.
ADVANCE_CATEGORY = [cat for cat, size in CATEGORY_SIZES for _ in range(size)]
ADVANCE_COUNT = len(ADVANCE_CATEGORY)
MISSING_ROW = 49
LAST_NAMED_ROW = 73

DISASTER, PROGRESS, EXPANSION, MIGRATION = "disaster", "progress", "expansion", "migration"
# Event table by d100 in blocks of five; rolls past the table mean nothing.
EVENTS = (
    (DISASTER, GATHERING),
    (DISASTER, HEALTH),
    (MIGRATION, HUNTING),
    (PROGRESS, TOOLS),
    (DISASTER, FIRE),
    (DISASTER, SHELTER),
    (DISASTER, CLOTHING),
    (DISASTER, PREY),
    (MIGRATION, FISHING),
    (EXPANSION, RELIGION),
    (PROGRESS, ART),
)
# Interaction rolls where the side weaker in a category loses bands.
INTERACTION_LOSSES = {2: (SHELTER, 1), 3: (HUNTING, 2), 4: (HEALTH, 2), 6: (PREY, 1)}
# Interaction rolls where the weaker side's bands join the stronger side.
INTERACTION_CONVERSIONS = {5: (ART, 2), 7: (CLOTHING, 2), 9: (TOOLS, 1), 0: (RELIGION, 2)}


class Game:
    def __init__(self, seed: int, players: int, adjacency: dict[str, list[str]]):
        self.rng = random.Random(seed)
        self.players = players
        self.names = list(adjacency)
        index = {name: i for i, name in enumerate(self.names)}
        self.neighbours = [[index[n] for n in adjacency[name]] for name in self.names]
        self.territories = len(self.names)
        self.bands = [[0] * self.territories for _ in range(players)]
        self.known = [[False] * ADVANCE_COUNT for _ in range(players)]
        self.known_count = [0] * players
        self.skill = [[0] * CATEGORY_COUNT for _ in range(players)]
        self.decisions = 0

    def choose(self, options: list):
        if len(options) == 1:
            return options[0]
        self.decisions += 1
        return self.rng.choice(options)

    def d(self, sides: int) -> int:
        return self.rng.randint(1, sides)

    def controlled(self, player: int) -> int:
        return sum(1 for count in self.bands[player] if count)

    def lose(self, player: int, territory: int, count: int) -> None:
        self.bands[player][territory] -= min(count, self.bands[player][territory])

    # Advances

    def learn(self, player: int, advance: int) -> None:
        self.known[player][advance] = True
        self.known_count[player] += 1
        self.skill[player][ADVANCE_CATEGORY[advance]] += 1

    def random_advance(self, player: int) -> None:
        known = self.known[player]
        if self.known_count[player] == ADVANCE_COUNT:
            return
        while True:
            row = self.d(100)
            if row == MISSING_ROW:
                continue
            if row > LAST_NAMED_ROW:
                options = [a for a in range(ADVANCE_COUNT) if not known[a]]
                self.learn(player, self.choose(options))
                return
            advance = row - 1 if row < MISSING_ROW else row - 2
            if not known[advance]:
                self.learn(player, advance)
                return

    # Setup

    def first_player(self) -> int:
        contenders = list(range(self.players))
        while True:
            rolls = [self.d(10) for _ in contenders]
            best = max(rolls)
            contenders = [p for p, roll in zip(contenders, rolls) if roll == best]
            if len(contenders) == 1:
                return contenders[0]

    def place_start(self, player: int) -> None:
        occupied = [t for t in range(self.territories) if any(b[t] for b in self.bands)]
        blocked = set(occupied)
        for t in occupied:
            blocked.update(self.neighbours[t])
        options = [
            t
            for t in range(self.territories)
            if t not in blocked and not any(n in occupied for n in self.neighbours[t])
        ]
        if not options:
            options = [t for t in range(self.territories) if t not in occupied]
        if not options:
            options = list(range(self.territories))
        self.bands[player][self.choose(options)] += START_BANDS

    # Turn phases

    def growth(self, player: int) -> list[int]:
        count = min(8, 4 + self.controlled(player) // 3)
        return [self.d(10) for _ in range(count)]

    def migration(self, dice: list[int]) -> None:
        chosen: list[int] = []
        while len(chosen) < MAX_MIGRATIONS:
            options: list = [i for i in range(len(dice)) if i not in chosen]
            options.append("done")
            pick = self.choose(options)
            if pick == "done":
                break
            chosen.append(pick)
        for i in chosen:
            dice[i] = self.d(10)

    def place(self, player: int, new: int) -> None:
        bands = self.bands[player]
        homes = [t for t in range(self.territories) if bands[t]]
        if not homes:
            return
        share, left = divmod(new, len(homes))
        for t in homes:
            bands[t] += share
        extra: list[int] = []
        for _ in range(left):
            spot = self.choose([t for t in homes if t not in extra])
            extra.append(spot)
            bands[spot] += 1

    def advance(self, player: int, dice: list[int]) -> None:
        bands = self.bands[player]
        self.place(player, sum(face for face in dice if face in (1, 2)))
        for face in dice:
            if face not in (3, 4):
                continue
            # moved_into[t]: bands that moved into t on this die and may not move again on it.
            moved_into = [0] * self.territories
            for _ in range(face):
                options: list = [
                    (t, n)
                    for t in range(self.territories)
                    if bands[t] > moved_into[t]
                    for n in self.neighbours[t]
                ]
                options.append("done")
                move = self.choose(options)
                if move == "done":
                    break
                bands[move[0]] -= 1
                bands[move[1]] += 1
                moved_into[move[1]] += 1
        if 5 in dice and 6 in dice:
            self.random_advance(player)

    def event(self, player: int) -> None:
        bands = self.bands[player]
        skill = self.skill[player]
        for t in [t for t in range(self.territories) if bands[t]]:
            if not bands[t]:
                continue
            roll = self.d(100)
            block = (roll - 1) // 5
            if block >= len(EVENTS):
                continue
            kind, category = EVENTS[block]
            r = self.d(6) - skill[category]
            if kind == DISASTER:
                if r > 0:
                    bands[t] -= 1
            elif kind == PROGRESS:
                if r <= 0:
                    self.random_advance(player)
            elif kind == EXPANSION:
                if r <= 0:
                    bands[t] += 1
            elif r <= 0:
                options: list = list(self.neighbours[t])
                options.append("lose")
                target = self.choose(options)
                bands[t] -= 1
                if target != "lose":
                    bands[target] += 1

    def weaker(self, a: int, b: int, category: int) -> int | None:
        if self.skill[a][category] == self.skill[b][category]:
            return None
        return a if self.skill[a][category] < self.skill[b][category] else b

    def interaction(self, player: int) -> None:
        for t in range(self.territories):
            if not self.bands[player][t]:
                continue  # as the ruleset: a space without the player's bands is passed over
            for other in range(self.players):
                if other == player or not self.bands[player][t] or not self.bands[other][t]:
                    continue
                roll = self.d(10) % 10
                if roll == 1:
                    known, mine = self.known[other], self.known[player]
                    options = [a for a in range(ADVANCE_COUNT) if known[a] and not mine[a]]
                    if options:
                        self.learn(player, self.choose(options))
                elif roll in INTERACTION_LOSSES:
                    category, loss = INTERACTION_LOSSES[roll]
                    loser = self.weaker(player, other, category)
                    if loser is not None:
                        self.lose(loser, t, loss)
                elif roll in INTERACTION_CONVERSIONS:
                    category, most = INTERACTION_CONVERSIONS[roll]
                    loser = self.weaker(player, other, category)
                    if loser is not None:
                        winner = other if loser == player else player
                        moved = min(most, self.bands[loser][t])
                        self.bands[loser][t] -= moved
                        self.bands[winner][t] += moved
                else:
                    mover = self.weaker(player, other, FIRE)
                    if mover is None or not self.neighbours[t] or not self.bands[mover][t]:
                        continue
                    target = self.choose(list(self.neighbours[t]))
                    moved = min(2, self.bands[mover][t])
                    self.bands[mover][t] -= moved
                    self.bands[mover][target] += moved

    def has_won(self, player: int) -> bool:
        if min(self.skill[player]) < WIN_PER_CATEGORY:
            return False
        return self.controlled(player) >= WIN_TERRITORIES

    def turn(self, player: int) -> bool:
        """Play one turn; True when someone has won."""
        dice = self.growth(player)
        self.migration(dice)
        self.advance(player, dice)
        self.event(player)
        self.interaction(player)
        for i in range(self.players):
            if self.has_won((player + i) % self.players):
                return True
        return False

    def play(self) -> int:
        first = self.first_player()
        order = [(first + i) % self.players for i in range(self.players)]
        for player in order:
            self.place_start(player)
        year = START_YEAR
        while year > END_YEAR:
            for player in order:
                if not any(self.bands[player]):
                    continue
                if self.turn(player):
                    return self.decisions
            year -= YEAR_STEP
        return self.decisions


def playout(
    seed: int, players: int = 2, adjacency: dict[str, list[str]] | None = None, **kw
) -> int:
    if not 2 <= players <= 6:
        raise ValueError("Cro-Magnon is for 2 to 6 players")
    if not adjacency:
        raise ValueError("Cro-Magnon needs an adjacency map")
    return Game(seed, players, adjacency).play()


RING = {
    "a": ["b", "f"],
    "b": ["a", "c"],
    "c": ["b", "d"],
    "d": ["c", "e"],
    "e": ["d", "f"],
    "f": ["e", "a"],
}


if __name__ == "__main__":
    games = 1000
    start = time.perf_counter()
    for seed in range(games):
        playout(seed, 3, adjacency=RING)
    elapsed = time.perf_counter() - start
    print(f"cro_magnon: {games / elapsed:.0f} games/s")
