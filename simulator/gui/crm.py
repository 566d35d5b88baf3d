from fastapi import APIRouter

from simulator.gui.page import GuiRoute

router = APIRouter(route_class=GuiRoute)
