"""Drafting vocabulary shared by the injector, the verifier and the rule-based scrubber. Written for this project."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Nouns that name the things contracts define (a phrase ending in one of these, capitalised, reads as a
# defined term: "Marketing Materials", "Termination Date").
HEAD_NOUNS = _words("""
information materials material products product services service property notice notices order orders fee fees
price prices specifications specification documentation records record report reports plan plans budget budgets
standards standard requirements data software equipment facility facilities premises rights costs expenses
payments payment royalties royalty sales revenue revenues deliverables deliverable milestones milestone forecast
forecasts program programs territory account accounts invoice invoices statement statements approval approvals
license licenses trademarks marks technology personnel employees contractors subsidiaries assets liabilities
losses damages claims obligations warranties warranty guidelines procedures policies policy period date
schedule exhibit amount amounts commission commissions plan budget inventory shipment shipments purchase
purchases agreement agreements materials documents document application applications
""")
# Nouns that read as a defined term only with a modifier ("the period" is not a term, "the Notice Period" is).
NEEDS_MODIFIER = _words("period date amount amounts schedule exhibit agreement agreements order orders notice "
                           "notices document documents application applications material")

# Words that never modify a head noun in a defined term.
NON_MODIFIERS = _words("""
a an the this that these those such said same other another any all each every either neither no not its their
his her our your my whose which who whom what whatever whichever of to in on at by for with from into onto upon
under over than then as and or nor but if so only also more most less least many much several certain various
own some few both first second third last next prior previous former latter above below hereunder thereunder
herein hereof thereof therein hereto thereto hereby thereby shall will may must can could would should might
does did has have had is are was were be been being do done make made provide provided including include includes
without within between among against during before after until unless except whether where when while because
per via written oral total full entire applicable relevant respective reasonable additional further new
one two three four five six seven eight nine ten any-and-all third-party non
""")

# Words before a defined term that show it is not meant as the defined term ("third parties", "similar
# services"); "other" and "another" only do so for a term that names one thing ("any other agreement", but
# not "the FERC and other governmental authorities", where the defined class may be meant).
CONTRAST_WORDS = _words("third similar separate different comparable competing")
OTHER_WORDS = _words("other another")
# The defined term `Agreement` names this agreement only: after these it means some other agreement.
AGREEMENT_CONTRAST = _words("a an any each")

# Verbs after a party name that make it the actor of a provision ("Licensee shall pay").
PARTY_VERBS = _words("shall may will must agrees acknowledges represents warrants covenants hereby")
