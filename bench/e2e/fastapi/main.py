# The end-to-end service in FastAPI: GET /items/{id}?verbose=true with an
# Authorization header required, answering the same JSON as the Go servers.
from fastapi import FastAPI, Header

app = FastAPI()


@app.get("/items/{id}")
def get_item(id: str, verbose: bool = False, authorization: str = Header()):
    return {
        "id": id,
        "name": "Item " + id,
        "price": 9.99,
        "tags": ["a", "b"],
        "verbose": verbose,
    }
