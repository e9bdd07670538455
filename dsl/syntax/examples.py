"""Known-bad snippets beside the grammar, each labelled with the message a user should see,
and the words a syntax error's hint uses for what the parser expected.

Used by `dsl.syntax.parse`: when a syntax error happens in the same parser state as one of these
snippets, the label becomes the error message; the hint names the expected terminals with
`expected_words`, never by their names in the grammar.
"""

LABELLED_EXAMPLES: dict[str, list[str]] = {
    'a ruleset file must start with `ruleset "name"`, `variant "name" extends "base"`, '
    '`library "name"` or `scenarios for "name"`': [
        "enum x { a }",
        "players 2",
    ],
    "a `while` loop needs a body in braces": [
        'ruleset "x" setup { while true max 3 x = 1 }',
    ],
    "an assignment needs a value after `=`": [
        'ruleset "x" setup { x = }',
        'ruleset "x" setup { let x = }',
    ],
    "a type is expected here, such as `int`, `bool`, `player` or a declared name": [
        'ruleset "x" var a: = 1',
        'ruleset "x" param a: = 1',
    ],
    "a state variable needs an initial value: `var name: type = value`": [
        'ruleset "x" var a: int',
        'ruleset "x" var a: int setup {}',
    ],
    "`choose` needs `from` and a list of options: `let x = choose p from options`": [
        'ruleset "x" setup { let x = choose p }',
        'ruleset "x" setup { let x = choose p as "y" }',
    ],
    "a choice is taken into a new local: `let x = choose p from options`": [
        'ruleset "x" setup { a[p] = choose p from [1] }',
        'ruleset "x" setup { a = choose p from [1] }',
    ],
    "`round` needs a bound: `round max N { ... }`": [
        'ruleset "x" round { }',
    ],
    "a dice roll is written `roll NdS`, for example `roll 2d6` or `roll 1d100`": [
        'ruleset "x" setup { let x = roll }',
        'ruleset "x" setup { let x = roll 6 }',
    ],
}


# What a syntax error's hint says the parser expected, in the language's words. Every
# terminal of the grammar has a word: a keyword or symbol is shown as itself (`` `then` ``),
# the rest are named here (tests/test_cli.py checks that none is missing).
TERMINAL_WORDS: dict[str, str] = {
    "$END": "the end of the file",
    "NAME": "a name",
    "INT": "a number",
    "STRING": 'a string `"…"`',
    "DICE": "dice such as `2d6`",
    "CITE": "a citation `§…`",
    "COMMENT": "a comment `# …`",
    "WS": "a space",
    "ASSIGN_OP": "an assignment (`=`, `+=`, `-=`)",
    "CMP_OP": "a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)",
    "ADD_OP": "an operator (`+`, `-`)",
    "MUL_OP": "an operator (`*`, `//`, `%`)",
    "NOT_OFFERED": "`not offered`",
    "VIEW_WHOSE": "whose entries a view group shows (`own`, `others`)",
}

# After a name, a bracket continues it: `f(…)` calls, `a[…]` indexes.
AFTER_NAME_WORDS: dict[str, str] = {
    "LPAR": "a call `(…)`",
    "LSQB": "an index `[…]`",
}

# When enough of a group's terminals are expected, the hint names the group instead of them.
EXPECTED_GROUPS: list[tuple[str, frozenset[str]]] = [
    (
        "a declaration (`var`, `fn`, `proc`, `table`, `round`, …)",
        frozenset(
            "VAR FN PROC PHASE STEP TABLE RECORD CARD TILE ENUM MAP ZONE POOL PARAM SETUP "
            "ROUND SCORE INVARIANT IMPORT PLAYERS TITLE SOURCE BOUND INTERPRETATION DEVIATION "
            "CONTRADICTION SET REPLACE ADD REMOVE".split()
        ),
    ),
    (
        "a statement (`let`, `if`, `for`, an assignment, a call, …)",
        frozenset(
            "LET IF FOR WHILE REPEAT ADD REMOVE MOVE SHUFFLE DRAW END LOG BREAK PASS ASK "
            "NAME".split()
        ),
    ),
    (
        "an operator (`+`, `==`, `and`, `in`, `.`, …)",
        frozenset("CMP_OP ADD_OP MUL_OP AND OR IN NOT DOT LSQB".split()),
    ),
    (
        "a value (a number, a name, a string, a list, `roll`, …)",
        frozenset("INT NAME STRING LPAR LSQB MINUS NOT TRUE FALSE NONE ROLL IF".split()),
    ),
]


def expected_words(names: set[str], literals: dict[str, str], after_name: bool = False) -> str:
    """`names` (terminals the parser would accept) as one phrase: "a name, `(` or `[`".

    `literals` maps each keyword or symbol terminal to its text. A terminal with no word
    is shown as "something else" rather than by its internal name."""
    left = set(names)
    parts: list[str] = []
    for phrase, group in EXPECTED_GROUPS:
        if len(left & group) >= min(6, len(group) // 2 + 1):
            parts.append(phrase)
            left -= group
    order = {
        word: n for n, word in enumerate([*TERMINAL_WORDS.values(), *AFTER_NAME_WORDS.values()])
    }
    words = {terminal_word(name, literals, after_name) or "something else" for name in left}
    # described things in the tables' order, then keywords, then symbols
    parts += sorted(
        words, key=lambda w: (order.get(w, len(order)), w[:1] == "`" and not w[1:2].isalpha(), w)
    )
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def terminal_word(name: str, literals: dict[str, str], after_name: bool = False) -> str | None:
    if after_name and name in AFTER_NAME_WORDS:
        return AFTER_NAME_WORDS[name]
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    text = literals.get(name)
    return f"`{text}`" if text else None
