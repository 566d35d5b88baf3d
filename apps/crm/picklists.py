"""Salesforce's standard picklists, as the types operations take (so every schema lists the values).

The entities (``apps.crm.models``) declare their fields with these types, so the world section checks
its files against the same values the CRM operations take.
"""

from __future__ import annotations

from typing import Literal, get_args

Stage = Literal["Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Proposal",
                "Negotiation", "Closed Won", "Closed Lost"]
# Each stage's default probability (%), as in Salesforce's standard sales process.
STAGE_PROBABILITY: dict[str, int] = {
    "Prospecting": 10, "Qualification": 20, "Needs Analysis": 30, "Value Proposition": 50,
    "Proposal": 65, "Negotiation": 80, "Closed Won": 100, "Closed Lost": 0,
}
STAGES: tuple[str, ...] = get_args(Stage)
CLOSED_STAGES = ("Closed Won", "Closed Lost")
OPEN_STAGES = tuple(s for s in STAGES if s not in CLOSED_STAGES)

LeadStatus = Literal["New", "Working", "Qualified", "Unqualified"]
LEAD_STATUSES: tuple[str, ...] = get_args(LeadStatus)

LeadSource = Literal["Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Trade Show",
                     "Employee Referral", "Email", "Other"]
LEAD_SOURCES: tuple[str, ...] = get_args(LeadSource)

AccountType = Literal["Prospect", "Customer", "Partner", "Reseller", "Competitor", "Investor", "Analyst",
                      "Press", "Other"]
ACCOUNT_TYPES: tuple[str, ...] = get_args(AccountType)

OpportunityType = Literal["New Customer", "Existing Customer - Upgrade", "Existing Customer - Replacement",
                          "Existing Customer - Downgrade"]
OPPORTUNITY_TYPES: tuple[str, ...] = get_args(OpportunityType)

CaseStatus = Literal["New", "Working", "Escalated", "Closed"]
CASE_STATUSES: tuple[str, ...] = get_args(CaseStatus)
CasePriority = Literal["Critical", "High", "Medium", "Low"]
CASE_PRIORITIES: tuple[str, ...] = get_args(CasePriority)
CaseOrigin = Literal["Email", "Phone", "Web"]
CASE_ORIGINS: tuple[str, ...] = get_args(CaseOrigin)

TaskStatus = Literal["Not Started", "In Progress", "Waiting on someone else", "Deferred", "Completed"]
TASK_STATUSES: tuple[str, ...] = get_args(TaskStatus)
TaskPriority = Literal["High", "Normal", "Low"]
TASK_PRIORITIES: tuple[str, ...] = get_args(TaskPriority)

ParentObject = Literal["Account", "Contact", "Lead", "Opportunity", "Case"]
