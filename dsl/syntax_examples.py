"""Known-bad snippets beside the grammar, each labelled with the message a user should see.

Used by `dsl.parse` through Lark's `match_examples`: when a syntax error happens in the same
parser state as one of these snippets, the label becomes the error message.
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
