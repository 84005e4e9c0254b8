"""Page and API routes of seeds."""

from django.urls import path

from tasks_app.seeds import api, views

urlpatterns = [
    path("seeds/", views.seed_list, name="seed-list"),
    path("seeds/<slug:name>/", views.seed_detail, name="seed-detail"),
]

api_urlpatterns = [
    path("seeds/", api.SeedListApi.as_view(), name="api-seed-list"),
    # <str:>, not <slug:>: a name with other characters reaches the view and gets its JSON 404, not an HTML page.
    path("seeds/<str:name>/", api.SeedDetailApi.as_view(), name="api-seed-detail"),
    path("seeds/<str:name>/dna/", api.SeedDnaApi.as_view(), name="api-seed-dna"),
]
