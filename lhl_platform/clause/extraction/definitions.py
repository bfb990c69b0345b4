"""Clause-type definitions in our own words, with NOTE blocks for the types models confuse."""

from __future__ import annotations

DEFINITIONS: dict[str, str] = {
    "Document Name": "The title of the contract as it names itself.",
    "Parties": "The persons or entities that sign the contract and the short names they are given.",
    "Agreement Date": "The date the contract is dated or signed.",
    "Effective Date": "The date from which the contract takes effect.",
    "Expiration Date": "When the initial term ends: a date, or a duration counted from a stated start.",
    "Renewal Term": "Any renewal or extension after the initial term, automatic or by option, and its length.",
    "Notice Period To Terminate Renewal": "How far ahead a party must give notice to stop a renewal.",
    "Governing Law": "Which jurisdiction's law governs the contract.",
    "Most Favored Nation": "A promise that a party gets terms at least as good as those given to any third party.",
    "Competitive Restriction Exception": "A carve-out or exception to a non-compete, exclusivity or no-solicit clause.",
    "Non-Compete": "A restriction on a party competing, or working with competitors, in a market, place or time.",
    "Exclusivity": "An exclusive dealing commitment: exclusive rights, sole supplier or customer, or a ban on "
                   "dealing with others.",
    "No-Solicit Of Customers": "A restriction on soliciting or taking the other party's customers.",
    "No-Solicit Of Employees": "A restriction on soliciting or hiring the other party's employees or contractors.",
    "Non-Disparagement": "A duty not to disparage the other party.",
    "Termination For Convenience": "A right to end the contract without cause, usually on notice.",
    "Rofr/Rofo/Rofn": "A right of first refusal, first offer or first negotiation.",
    "Change Of Control": "A right or consequence triggered by a merger, acquisition or change of control.",
    "Anti-Assignment": "A need for consent or notice before the contract can be assigned.",
    "Revenue/Profit Sharing": "A duty to share revenue or profit, including royalties and commissions.",
    "Price Restrictions": "A limit on raising or lowering prices.",
    "Minimum Commitment": "A minimum amount or quantity a party must buy, sell or pay for.",
    "Volume Restriction": "A cap or threshold on quantity or usage, with consequences when exceeded.",
    "Ip Ownership Assignment": "Intellectual property created by one party that becomes the other party's "
                               "property, including by assignment.",
    "Joint Ip Ownership": "Intellectual property owned jointly by the parties.",
    "License Grant": "A license granted by one party to the other or to third parties.",
    "Non-Transferable License": "A limit on transferring or sublicensing a granted license.",
    "Affiliate License-Licensor": "A license that covers intellectual property of the licensor's affiliates.",
    "Affiliate License-Licensee": "A license whose grant extends to the licensee's affiliates.",
    "Unlimited/All-You-Can-Eat-License": "A license without limit on use, users or copies, or an enterprise-wide "
                                          "license.",
    "Irrevocable Or Perpetual License": "A license that is irrevocable or perpetual.",
    "Source Code Escrow": "A duty to deposit source code with an escrow agent and release it on stated events.",
    "Post-Termination Services": "Duties that continue after the contract ends: transition, wind-down, "
                                 "continued supply or access.",
    "Audit Rights": "A right to audit or inspect the other party's books, records or premises.",
    "Uncapped Liability": "Liability that the contract leaves unlimited, e.g. carve-outs from the liability cap.",
    "Cap On Liability": "A ceiling on a party's liability, in money or by reference to fees.",
    "Liquidated Damages": "Damages fixed in advance, including termination fees and service credits.",
    "Warranty Duration": "How long a warranty lasts.",
    "Insurance": "A duty to hold insurance, including limits and additional-insured requirements.",
    "Covenant Not To Sue": "A promise not to sue or not to challenge the other party's rights.",
    "Third Party Beneficiary": "A non-party that may enforce rights under the contract.",
}

NOTES: dict[str, str] = {
    "Cap On Liability": "An exclusion of consequential, indirect or punitive damages is NOT a cap; a cap names a "
                        "ceiling. Quote the ceiling with every exception to it.",
    "Uncapped Liability": "Only where the contract itself removes a limit; silence about liability is not uncapped.",
    "Liquidated Damages": "An ordinary price or fee is not liquidated damages.",
    "Minimum Commitment": "A forecast or an estimate is not a commitment.",
    "Price Restrictions": "A price list alone is not a restriction; look for limits on changing prices.",
    "Volume Restriction": "A minimum is a Minimum Commitment, not a Volume Restriction.",
    "Expiration Date": "Renewal terms belong to Renewal Term, not here.",
    "Exclusivity": "A non-exclusive grant is the opposite of exclusivity.",
    "Competitive Restriction Exception": "Only exceptions to competition restrictions, not general carve-outs.",
    "License Grant": "A mere permission to use a name in a notice is a license grant only if it grants rights.",
}
