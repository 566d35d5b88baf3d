from surfaces import call


def test_search_over_rest_finds_the_unread_starred_message(api, episode):
    response = call(api, episode, "mail", "search", query="is:unread is:starred")
    assert response.status_code == 200, response.text
    assert [m["subject"] for m in response.json()["messages"]] == ["Globex renewal pricing"]
