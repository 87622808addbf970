"""How to play each game, in a few short lines a table can read aloud.

Written for the screen, in our own words, from the publishers' rulebooks and the readings the
table follows (``tray/rules/RULES.md``; a comment above each page names its section). Each
page: the goal, then a handful of points, then what the buttons do in that game.

>>> page = how_to("bank")
>>> page.goal
'Bank the most points over the rounds.'
>>> len(page.points) >= 3 and page.buttons.startswith("Press")
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HowTo:
    """The how-to-play page of one game."""

    goal: str
    points: tuple[str, ...]
    buttons: str


PAGES = {
    # tray/rules/RULES.md#1-tally-up
    "tally-up": HowTo(
        "First to reach the target score wins.",
        (
            "The active player rolls three Tally Dice; those colours are locked for the round.",
            "Points add to a running total shared by everyone still IN.",
            "After each roll, everyone IN secretly picks IN or OUT; all reveal at once.",
            "Going OUT banks the running total for you. Staying IN risks it.",
            "Two stars: BUST, everyone IN loses the total. A circle brings the Up Die.",
            "Three stars: TALLY UP! First press scores +200, the others IN +100.",
        ),
        "Press to switch IN / OUT in secret. After three stars, press first!",
    ),
    # tray/rules/RULES.md#2-toss-up
    "toss-up": HowTo(
        "Score over 100 points; the highest score then wins.",
        (
            "Roll all ten dice. Every green is a point: set the greens aside.",
            "Roll the dice that are left, or stop and keep the turn's points.",
            "No green and at least one red: BUST, the turn scores nothing.",
            "All ten green: they all come back and the turn goes on.",
            "Once someone passes 100, everyone else has one last turn.",
        ),
        "Press to stop and keep your points; roll again to push on.",
    ),
    # tray/rules/RULES.md#3-bank
    "bank": HowTo(
        "Bank the most points over the rounds.",
        (
            "Players take turns rolling two dice into one shared total.",
            "Rolls 1 to 3: a 7 adds 70. From roll 4 a 7 ends the round.",
            "From roll 4, doubles double the total (then add the roll).",
            "After roll 3, anyone may bank: the total goes onto their score.",
            "Whoever has not banked when the 7 comes scores nothing that round.",
        ),
        "Press your button to bank the total, any time after roll 3.",
    ),
    # tray/rules/RULES.md#4-dicedout
    "diced-out": HowTo(
        "Lowest total after four rounds wins.",
        (
            "Roll two dice and mark the sum on your sheet (2 to 12).",
            "A sum already marked uses one of your rerolls.",
            "No rerolls left: DICEDOUT! Your unmarked numbers are your round score.",
            "Rolling a double-circle number (2 or 12) lets you mark one more.",
            "Lowest of the round starts next and takes a reroll from someone.",
        ),
        "Choices: short press = next, long press = confirm.",
    ),
    # tray/rules/RULES.md#5-rollers
    "rollers": HowTo(
        "First to 5 points wins; close all five sections to score.",
        (
            "Up to three rolls a turn: save dice after each roll, then apply them.",
            "k dice showing k open section k; one more die of k closes it.",
            "A star is any number you like. The ZAP voids the dice rolled with it.",
            "Each die on a closed number collects chips from the others.",
            "Close all five: 2 points (1 with no chips). Most chips: 1 point.",
        ),
        "Choices: short press = next, long press = confirm.",
    ),
}


def how_to(game_id: str) -> HowTo:
    """The page of ``game_id``; KeyError names the games that have one."""
    try:
        return PAGES[game_id]
    except KeyError:
        raise KeyError(
            f"no how-to page for {game_id!r}: pages exist for {', '.join(PAGES)}"
        ) from None
